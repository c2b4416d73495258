//! A view's picture, scaled to fit the screen, with what the player draws
//! over it: the chosen point, the locked panel's region, and in practice
//! the parts' boxes. The pointer's coordinate on the 0–1000 scale is shown
//! under it. Overlays are positioned in percent of the picture, so they
//! stay in place at any displayed size.

use leptos::prelude::*;
use leptos::wasm_bindgen::JsCast;
use web_sys::MouseEvent;

use knoblab_core::geom::{PixelPoint, ScaledPoint};
use knoblab_eval::play::views::FractionBox;

/// The point under the mouse, on the 0–1000 scale of the picture as shown
/// (the core's rounding, [`ScaledPoint::from_pixels`]).
fn point_of(ev: &MouseEvent) -> Option<ScaledPoint> {
    let element: web_sys::Element = ev.current_target()?.dyn_into().ok()?;
    let (w, h) = (element.client_width(), element.client_height());
    if w <= 0 || h <= 0 {
        return None;
    }
    let p = PixelPoint {
        x: f64::from(ev.offset_x()),
        y: f64::from(ev.offset_y()),
    };
    Some(ScaledPoint::from_pixels(p, w as u32, h as u32))
}

fn percent(fraction: f64) -> String {
    format!("{:.3}%", fraction * 100.0)
}

fn box_style(b: &FractionBox) -> String {
    format!(
        "left:{};top:{};width:{};height:{}",
        percent(b.left),
        percent(b.top),
        percent(b.width),
        percent(b.height)
    )
}

/// A picture with its overlays. `on_pick`, when given, receives the point
/// a click chose.
#[component]
pub fn Picture(
    /// The picture's URL.
    #[prop(into)]
    src: Signal<String>,
    /// Its text alternative.
    #[prop(into)]
    alt: Signal<String>,
    /// The chosen point, marked on the picture.
    #[prop(into)]
    point: Signal<Option<ScaledPoint>>,
    /// The locked dashboard's region, shaded.
    #[prop(into)]
    locked_region: Signal<Option<FractionBox>>,
    /// Components' boxes to outline (practice mode), with their names.
    #[prop(into)]
    boxes: Signal<Vec<(String, FractionBox)>>,
    /// Receives the point a click chose.
    #[prop(optional)]
    on_pick: Option<Callback<ScaledPoint>>,
    /// The picture's `data-testid`.
    #[prop(into)]
    testid: String,
) -> impl IntoView {
    let (hover, set_hover) = signal(None::<ScaledPoint>);
    let pickable = on_pick.is_some();
    let coords = move |p: Option<ScaledPoint>| {
        p.map_or("–".to_string(), |p| format!("({}, {})", p.x, p.y))
    };
    view! {
        <figure class="picture" data-testid=testid.clone()>
            <div class="picture-frame" class:pickable=pickable>
                <img
                    src=move || src.get()
                    alt=move || alt.get()
                    draggable="false"
                    data-testid=format!("{testid}-img")
                    on:mousemove=move |ev| set_hover.set(point_of(&ev))
                    on:mouseleave=move |_| set_hover.set(None)
                    on:click=move |ev| {
                        if let (Some(pick), Some(p)) = (on_pick, point_of(&ev)) {
                            pick.run(p);
                        }
                    }
                />
                {move || {
                    locked_region
                        .get()
                        .map(|r| {
                            view! {
                                <span class="locked-region" style=box_style(&r) data-testid="locked-region">
                                    <span>"locked panel"</span>
                                </span>
                            }
                        })
                }}
                {move || {
                    boxes
                        .get()
                        .into_iter()
                        .map(|(name, b)| {
                            view! {
                                <span class="part-box" style=box_style(&b) data-testid="part-box">
                                    <span>{name}</span>
                                </span>
                            }
                        })
                        .collect_view()
                }}
                {move || {
                    point
                        .get()
                        .map(|p| {
                            let (x, y) = p.fractions();
                            let style = format!("left:{};top:{}", percent(x), percent(y));
                            view! { <span class="marker" style=style data-testid="marker"></span> }
                        })
                }}
            </div>
            <figcaption class="coords">
                {pickable.then(|| view! {
                    <span data-testid="pointer">"Pointer " {move || coords(hover.get())}</span>
                })}
                <span data-testid="point">"Point " {move || coords(point.get())}</span>
            </figcaption>
        </figure>
    }
}

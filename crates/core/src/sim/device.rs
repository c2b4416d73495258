//! A bundle compiled for stepping: states, views and components by index,
//! component boxes per view, the dashboard, and for each component a point
//! that an agent can click to reach it. Built once per episode or agent.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::bundle::model::{Bundle, State, Task, Transition, ViewKind, IMMEDIATE, TIMED_WAIT};
use crate::geom::{PixelBox, PixelPoint, ScaledPoint};

use super::boxes::{smallest_containing, ComponentBoxIndex};

/// Views in the order they are listed to an agent: the orthographic ones,
/// then the axonometric ones, then the dashboard; other names after, by name.
const VIEW_ORDER: [&str; 9] = [
    "front",
    "back",
    "left",
    "right",
    "top",
    "bottom",
    "front_top",
    "back_bottom",
    "dashboard",
];

/// One state, with its transitions sorted out.
#[derive(Debug, Clone)]
pub struct StateInfo<'b> {
    /// The state's name.
    pub name: &'b str,
    /// Its entry in the SSM (`None` for a state only named as a next state).
    pub state: Option<&'b State>,
    /// Whether it is dangerous (named `Error`, or flagged).
    pub error: bool,
    /// (component index, its transitions in file order).
    pub physical: Vec<(usize, &'b [Transition])>,
    /// The transition `Timed_wait()` fires, if any.
    pub timed_wait: Option<&'b Transition>,
    /// The transition that fires as soon as the state is entered, if any.
    pub immediate: Option<&'b Transition>,
}

/// One view, with its component boxes in pixels of its image.
#[derive(Debug, Clone)]
pub struct ViewInfo<'b> {
    /// The view's name.
    pub name: &'b str,
    /// What it is for.
    pub kind: ViewKind,
    /// Its image's width in pixels.
    pub width: u32,
    /// Its image's height in pixels.
    pub height: u32,
    /// (component index, box), smallest-box matching runs over these.
    pub boxes: Vec<(usize, PixelBox)>,
    /// Per component: a point where a click reaches it (the centre of its
    /// first box when that works), or `None` if it cannot be reached here.
    pub click: Vec<Option<ScaledPoint>>,
    /// The same, avoiding the locked dashboard region (for its parent view).
    pub click_locked: Vec<Option<ScaledPoint>>,
}

/// The dashboard: a close-up of a region of its parent view.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Dashboard {
    /// The dashboard's view index.
    pub view: usize,
    /// The index of the view it magnifies.
    pub parent: usize,
    /// The region, in pixels of the parent's image.
    pub region: PixelBox,
    /// A point of the region on the parent's 0–1000 scale, for unlocking.
    pub point: Option<ScaledPoint>,
}

/// A bundle compiled for stepping. Borrows the bundle.
#[derive(Debug, Clone)]
pub struct Device<'b> {
    /// The bundle it was compiled from.
    pub bundle: &'b Bundle,
    /// Every state, by index.
    pub states: Vec<StateInfo<'b>>,
    /// Every view, by index, in listing order.
    pub views: Vec<ViewInfo<'b>>,
    /// Every component name, by index.
    pub components: Vec<&'b str>,
    /// **Decision (spec silent):** a bundle has at most one dashboard (the
    /// view set of section 1 names one, `dashboard`); if several views are
    /// of kind dashboard, the first in listing order is used.
    pub dashboard: Option<Dashboard>,
    state_index: BTreeMap<&'b str, usize>,
}

impl<'b> Device<'b> {
    /// Compiles a bundle. Never fails: names the bundle does not define
    /// (which validation refuses) simply lead nowhere.
    pub fn new(bundle: &'b Bundle) -> Device<'b> {
        let index = ComponentBoxIndex::build(bundle);

        let mut components: Vec<&'b str> = Vec::new();
        for state in bundle.ssm.states.values() {
            for key in state.on.keys() {
                if key != IMMEDIATE && key != TIMED_WAIT {
                    components.push(key.as_str());
                }
            }
        }
        components.sort_unstable();
        components.dedup();
        let component_index = |name: &str| components.binary_search(&name).ok();

        // States: those defined, plus targets that are not (so an invalid
        // bundle still steps without panicking).
        let mut names: Vec<&'b str> = bundle.ssm.states.keys().map(String::as_str).collect();
        for state in bundle.ssm.states.values() {
            for ts in state.on.values() {
                for t in ts {
                    names.push(t.next_state.as_str());
                }
            }
        }
        names.push(bundle.ssm.initial_state.as_str());
        names.sort_unstable();
        names.dedup();
        let states: Vec<StateInfo<'b>> = names
            .iter()
            .map(|&name| {
                let state = bundle.ssm.states.get(name);
                let mut info = StateInfo {
                    name,
                    state,
                    error: state.is_some_and(|s| s.is_error(name))
                        || name == crate::bundle::model::ERROR_STATE,
                    physical: Vec::new(),
                    timed_wait: None,
                    immediate: None,
                };
                if let Some(s) = state {
                    for (key, ts) in &s.on {
                        if key == IMMEDIATE {
                            info.immediate = ts.first();
                        } else if key == TIMED_WAIT {
                            info.timed_wait = ts.first();
                        } else if let Some(c) = component_index(key) {
                            if !ts.is_empty() {
                                info.physical.push((c, ts.as_slice()));
                            }
                        }
                    }
                }
                info
            })
            .collect();
        let state_index = names.iter().enumerate().map(|(i, &n)| (n, i)).collect();

        let mut view_names: Vec<&'b str> = bundle.views.keys().map(String::as_str).collect();
        view_names.sort_by_key(|n| {
            (
                VIEW_ORDER
                    .iter()
                    .position(|o| o == n)
                    .unwrap_or(VIEW_ORDER.len()),
                *n,
            )
        });
        let mut views: Vec<ViewInfo<'b>> = view_names
            .iter()
            .filter_map(|&name| {
                let view = bundle.views.get(name)?;
                let boxes = index
                    .in_view(name)
                    .iter()
                    .filter_map(|b| Some((component_index(&b.component)?, b.bbox)))
                    .collect();
                Some(ViewInfo {
                    name,
                    kind: view.spec.kind,
                    width: view.image.width,
                    height: view.image.height,
                    boxes,
                    click: Vec::new(),
                    click_locked: Vec::new(),
                })
            })
            .collect();

        let view_pos = |name: &str| views.iter().position(|v| v.name == name);
        let dashboard = views
            .iter()
            .position(|v| v.kind == ViewKind::Dashboard)
            .and_then(|d| {
                let spec = &bundle.views.get(views[d].name)?.spec;
                let parent = view_pos(spec.parent.as_deref()?)?;
                let [x, y, w, h] = spec.region?;
                let region = PixelBox { x, y, w, h };
                let pv = &views[parent];
                let centre = PixelPoint {
                    x: x + w / 2.0,
                    y: y + h / 2.0,
                };
                let point = Some(ScaledPoint::from_pixels(centre, pv.width, pv.height))
                    .filter(|p| region.contains(p.to_pixels(pv.width, pv.height)));
                Some(Dashboard {
                    view: d,
                    parent,
                    region,
                    point,
                })
            });

        for (vi, view) in views.iter_mut().enumerate() {
            let region = dashboard.filter(|d| d.parent == vi).map(|d| d.region);
            view.click = (0..components.len())
                .map(|c| click_point(view, c, None))
                .collect();
            view.click_locked = (0..components.len())
                .map(|c| click_point(view, c, region))
                .collect();
        }

        Device {
            bundle,
            states,
            views,
            components,
            dashboard,
            state_index,
        }
    }

    /// Where a task starts, by name: its initial state (default the
    /// SSM's) and view (default the manifest's).
    pub fn task_start_names<'a>(&self, task: &'a Task) -> (&'a str, &'a str)
    where
        'b: 'a,
    {
        (
            task.initial_state
                .as_deref()
                .unwrap_or(&self.bundle.ssm.initial_state),
            task.initial_view
                .as_deref()
                .unwrap_or(&self.bundle.manifest.initial_view),
        )
    }

    /// Where a task starts (the dashboard counts as unlocked only when the
    /// task starts on it) and its goal states, if the bundle has them all.
    pub fn task_start(&self, task: &Task) -> Option<(Node, Vec<usize>)> {
        let (state, view) = self.task_start_names(task);
        let state = self.state(state)?;
        let view = self.view(view)?;
        let goals = task
            .goals
            .iter()
            .map(|g| self.state(&g.state))
            .collect::<Option<Vec<_>>>()?;
        let unlocked = self.dashboard.is_some_and(|d| d.view == view);
        Some((
            Node {
                state,
                view,
                unlocked,
            },
            goals,
        ))
    }

    /// The index of a state by name.
    pub fn state(&self, name: &str) -> Option<usize> {
        self.state_index.get(name).copied()
    }

    /// The index of a view by name.
    pub fn view(&self, name: &str) -> Option<usize> {
        self.views.iter().position(|v| v.name == name)
    }

    /// The component that a point on the 0–1000 scale of a view reaches.
    ///
    /// **Decision:** if several boxes contain the point, the smallest box
    /// wins.
    pub fn component_at(&self, view: usize, point: ScaledPoint) -> Option<usize> {
        let v = self.views.get(view)?;
        component_at_pixel(v, point.to_pixels(v.width, v.height))
    }

    /// Whether a point of a view falls on the locked-dashboard region (only
    /// meaningful while the dashboard is locked).
    pub fn in_dashboard_region(&self, view: usize, point: ScaledPoint) -> bool {
        match (self.dashboard, self.views.get(view)) {
            (Some(d), Some(v)) if d.parent == view => {
                d.region.contains(point.to_pixels(v.width, v.height))
            }
            _ => false,
        }
    }

    /// The transitions a component has in a state.
    pub fn transitions(&self, state: usize, component: usize) -> Option<&'b [Transition]> {
        self.states
            .get(state)?
            .physical
            .iter()
            .find(|(c, _)| *c == component)
            .map(|(_, ts)| *ts)
    }

    /// Where a click reaches a component in a view, given the lock.
    pub fn click_point(
        &self,
        view: usize,
        component: usize,
        unlocked: bool,
    ) -> Option<ScaledPoint> {
        let v = self.views.get(view)?;
        let points = if unlocked { &v.click } else { &v.click_locked };
        points.get(component).copied().flatten()
    }

    /// Follows a fired transition and then the `immediate` chain from its
    /// target. Returns the states entered, in order (the last is where the
    /// device ends), and the descriptions to report.
    ///
    /// Validation forbids cycles of immediate transitions; the chain is
    /// bounded by the number of states anyway, so a bad bundle never hangs.
    pub fn follow(&self, fired: &'b Transition) -> Chain<'b> {
        let mut chain = Chain::default();
        let Some(mut at) = self.state(&fired.next_state) else {
            return chain;
        };
        chain.texts.push(&fired.transition_description);
        if let Some(desc) = self.states[at].state.map(|s| s.description.as_str()) {
            chain.texts.push(desc);
        }
        chain.entered.push(at);
        for _ in 0..=self.states.len() {
            let Some(next) = self.states[at].immediate else {
                break;
            };
            let Some(to) = self.state(&next.next_state) else {
                break;
            };
            chain.texts.push(&next.transition_description);
            chain.entered.push(to);
            at = to;
        }
        chain
    }
}

/// What following a transition did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Chain<'b> {
    /// States entered, in order; the last is where the device ends.
    pub entered: Vec<usize>,
    /// Descriptions to report, in order.
    pub texts: Vec<&'b str>,
}

fn component_at_pixel(view: &ViewInfo<'_>, p: PixelPoint) -> Option<usize> {
    smallest_containing(view.boxes.iter().map(|(c, b)| (b, *c)), p)
}

/// A point on the view's 0–1000 scale where a click reaches `component`
/// (and, given a `forbidden` region, lies outside it): the centre of one of
/// its boxes if that works, else the first point of a 9×9 grid over the box.
fn click_point(
    view: &ViewInfo<'_>,
    component: usize,
    forbidden: Option<PixelBox>,
) -> Option<ScaledPoint> {
    const GRID: u32 = 9;
    let boxes = view.boxes.iter().filter(|(c, _)| *c == component);
    for (_, b) in boxes {
        let centre = (0.5, 0.5);
        let grid = (0..GRID * GRID).map(|i| {
            (
                (f64::from(i % GRID) + 0.5) / f64::from(GRID),
                (f64::from(i / GRID) + 0.5) / f64::from(GRID),
            )
        });
        for (fx, fy) in std::iter::once(centre).chain(grid) {
            let px = PixelPoint {
                x: b.x + b.w * fx,
                y: b.y + b.h * fy,
            };
            let p = ScaledPoint::from_pixels(px, view.width, view.height);
            let back = p.to_pixels(view.width, view.height);
            if component_at_pixel(view, back) == Some(component)
                && forbidden.is_none_or(|r| !r.contains(back))
            {
                return Some(p);
            }
        }
    }
    None
}

/// Where the episode is, as far as planning goes: the state, the view and
/// whether the dashboard is unlocked. It is the device's position, so it
/// lives with the device, which the planner searches over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Node {
    /// The state's index.
    pub state: usize,
    /// The view's index.
    pub view: usize,
    /// Whether the dashboard is unlocked.
    pub unlocked: bool,
}

//! The API key's one place outside memory: `localStorage`, and only when
//! the user ticks "remember on this device". Unticking forgets it there.
//! Nothing else in the page writes the key anywhere.

const KEY_ITEM: &str = "knoblab.agent.key";

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

/// The remembered key, if one was remembered.
pub fn remembered() -> Option<String> {
    storage()?
        .get_item(KEY_ITEM)
        .ok()
        .flatten()
        .filter(|k| !k.is_empty())
}

/// Remembers `key` on this device, or forgets it when `remember` is false.
pub fn remember(key: &str, remember: bool) {
    let Some(s) = storage() else {
        return;
    };
    let _ = if remember && !key.is_empty() {
        s.set_item(KEY_ITEM, key)
    } else {
        s.remove_item(KEY_ITEM)
    };
}

//! Paths written inside a file (a bundle's `views/front.png`, an EPIC
//! record's `gt_json_path`) are resolved under their root: no absolute
//! path, no drive letter, no `..` climbing out. A file can never make us
//! read outside the folder it was given with.

use super::InputError;

/// Checks a path written in a file and returns it in the form used to look
/// it up: `/`-separated, without `./` or empty parts. Backslashes count as
/// separators (a file written on Windows).
///
/// ```
/// use knoblab_core::input::path::normalize;
/// assert_eq!(normalize("./views\\front.png").unwrap(), "views/front.png");
/// assert!(normalize("../etc/passwd").is_err());
/// assert!(normalize("/dev/zero").is_err());
/// ```
pub fn normalize(path: &str) -> Result<String, InputError> {
    let refuse = |reason| InputError::Path {
        path: super::text::escape_controls(path).into_owned(),
        reason,
    };
    let unified = path.replace('\\', "/");
    if unified.starts_with('/') || unified.contains(':') {
        return Err(refuse(
            "is absolute; expected a path inside the folder, such as `views/front.png`",
        ));
    }
    if unified.contains('\0') {
        return Err(refuse("holds a NUL byte"));
    }
    let mut parts = Vec::new();
    for part in unified.split('/') {
        match part {
            "" | "." => {}
            ".." => return Err(refuse(
                "leaves its folder (`..`); expected a path inside it, such as `views/front.png`",
            )),
            other => parts.push(other),
        }
    }
    if parts.is_empty() {
        return Err(refuse(
            "is empty; expected a path such as `views/front.png`",
        ));
    }
    Ok(parts.join("/"))
}

/// `root` joined with the normalised `path` (native only).
#[cfg(not(target_arch = "wasm32"))]
pub fn resolve_under(root: &std::path::Path, path: &str) -> Result<std::path::PathBuf, InputError> {
    let clean = normalize(path)?;
    Ok(clean
        .split('/')
        .fold(root.to_path_buf(), |p, part| p.join(part)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_stay_inside_their_root() {
        assert_eq!(normalize("./views/front.png").unwrap(), "views/front.png");
        assert_eq!(normalize("views\\front.png").unwrap(), "views/front.png");
        assert_eq!(normalize("a//b/./c").unwrap(), "a/b/c");
        for bad in [
            "../secret.png",
            "views/../../x",
            "a/../b",
            "/etc/passwd",
            "//dev/zero",
            "\\\\server\\share",
            "C:/x.png",
            "",
            "./",
            "a\0b",
        ] {
            assert!(normalize(bad).is_err(), "{bad:?} should be refused");
        }
    }
}

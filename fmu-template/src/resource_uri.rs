//! `fmuResourceLocation` (a URI) to a local path. Accepts `file:///abs/path/`,
//! `file:/abs/path`, `file://localhost/abs/path`, percent-encoding (`%20`), with or
//! without the trailing slash. A plain absolute path is accepted too (some importers
//! pass one).

use std::path::PathBuf;

/// The folder named by `uri`.
pub fn resource_dir(uri: &str) -> Result<PathBuf, String> {
    let rest = if let Some(r) = uri.strip_prefix("file://localhost/") {
        format!("/{r}")
    } else if let Some(r) = uri.strip_prefix("file:///") {
        format!("/{r}")
    } else if let Some(r) = uri.strip_prefix("file://") {
        return Err(format!("fmuResourceLocation '{uri}' names a remote host ('{}'); only local files are supported", r.split('/').next().unwrap_or("")));
    } else if let Some(r) = uri.strip_prefix("file:") {
        r.to_string()
    } else if uri.starts_with('/') {
        uri.to_string()
    } else {
        return Err(format!("fmuResourceLocation '{uri}' is not a file: URI"));
    };
    let decoded = percent_decode(&rest)
        .ok_or_else(|| format!("fmuResourceLocation '{uri}' has a bad percent-encoding"))?;
    if !decoded.starts_with('/') {
        return Err(format!(
            "fmuResourceLocation '{uri}' is not an absolute path"
        ));
    }
    Ok(PathBuf::from(decoded))
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_the_forms_importers_use() {
        for (uri, path) in [
            ("file:///tmp/fmu/resources/", "/tmp/fmu/resources/"),
            ("file:///tmp/fmu/resources", "/tmp/fmu/resources"),
            ("file:/tmp/fmu/resources/", "/tmp/fmu/resources/"),
            ("file://localhost/tmp/fmu/resources", "/tmp/fmu/resources"),
            ("file:///tmp/my%20fmu/resources/", "/tmp/my fmu/resources/"),
            ("/tmp/fmu/resources", "/tmp/fmu/resources"),
        ] {
            assert_eq!(resource_dir(uri).unwrap(), PathBuf::from(path), "{uri}");
        }
    }

    #[test]
    fn refuses_what_is_not_a_local_file_uri() {
        for uri in [
            "http://x/y",
            "file://server/share",
            "file:///tmp/%zz",
            "file:relative",
            "relative/path",
        ] {
            assert!(resource_dir(uri).is_err(), "{uri}");
        }
    }
}

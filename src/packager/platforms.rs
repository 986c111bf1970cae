//! The platforms an FMU carries a runtime for, and where the packager finds the runtime
//! libraries (docs/platforms.md).
//!
//! - The host's runtime: `--runtime`, `$CONTACT_FMU_RUNTIME`, or
//!   `libcontact_fmu_runtime.so` next to the executable ([`super::find_runtime`]).
//! - Every other platform's: a folder of runtimes laid out as `<folder>/<library>`
//!   (`win64/contact_fmu_runtime.dll`, `aarch64-linux/libcontact_fmu_runtime.so`,
//!   `darwin64/libcontact_fmu_runtime.dylib`): `--runtimes DIR`, `$CONTACT_FMU_RUNTIMES`,
//!   or `runtimes/` next to the executable, where `ci/cross.sh` puts what it builds. A
//!   runtime built on another machine (macOS) is dropped into such a folder.

use super::PackageError;
use std::path::{Path, PathBuf};

/// A platform of an FMU's `binaries/` folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Platform {
    /// Linux x86-64: `binaries/linux64/*.so` (FMI 2.0).
    Linux64,
    /// Windows x86-64: `binaries/win64/*.dll` (FMI 2.0).
    Win64,
    /// Linux aarch64: `binaries/aarch64-linux/*.so`. FMI 2.0 names no folder for it;
    /// this is FMI 3.0's platform tuple, which FMI 2.0 importers that support aarch64
    /// look for (docs/platforms.md).
    Aarch64Linux,
    /// macOS (x86-64 or universal): `binaries/darwin64/*.dylib` (FMI 2.0).
    Darwin64,
}

impl Platform {
    /// Every platform, in the order the archive lists them.
    pub const ALL: [Platform; 4] = [
        Platform::Linux64,
        Platform::Win64,
        Platform::Aarch64Linux,
        Platform::Darwin64,
    ];

    /// The folder under `binaries/`.
    pub fn folder(self) -> &'static str {
        match self {
            Platform::Linux64 => "linux64",
            Platform::Win64 => "win64",
            Platform::Aarch64Linux => "aarch64-linux",
            Platform::Darwin64 => "darwin64",
        }
    }

    /// The folder under `binaries/` of an FMI 3.0 FMU: the platform tuple
    /// `<arch>-<os>` (FMI 3.0, section 2.5.1.1). A `darwin64` runtime goes to
    /// `x86_64-darwin`.
    pub fn tuple(self) -> &'static str {
        match self {
            Platform::Linux64 => "x86_64-linux",
            Platform::Win64 => "x86_64-windows",
            Platform::Aarch64Linux => "aarch64-linux",
            Platform::Darwin64 => "x86_64-darwin",
        }
    }

    /// The shared library's file extension.
    pub fn extension(self) -> &'static str {
        match self {
            Platform::Linux64 | Platform::Aarch64Linux => "so",
            Platform::Win64 => "dll",
            Platform::Darwin64 => "dylib",
        }
    }

    /// The platform this program runs on, if an FMU can have it.
    pub fn host() -> Option<Platform> {
        match (std::env::consts::OS, std::env::consts::ARCH) {
            ("linux", "x86_64") => Some(Platform::Linux64),
            ("linux", "aarch64") => Some(Platform::Aarch64Linux),
            ("windows", "x86_64") => Some(Platform::Win64),
            ("macos", _) => Some(Platform::Darwin64),
            _ => None,
        }
    }

    /// Checks that `bytes` (a file's contents, at least its first 4 KB) are a shared
    /// library for this platform: an x86-64 or aarch64 ELF shared object, an x86-64
    /// PE image, or a 64-bit (or universal) Mach-O; else says what the file is, so that
    /// a wrong `--runtime` never goes into an FMU.
    pub fn check_library(self, bytes: &[u8]) -> Result<(), String> {
        let u16_at = |k: usize| bytes.get(k..k + 2).map(|b| u16::from_le_bytes([b[0], b[1]]));
        let u32_at = |k: usize| {
            bytes
                .get(k..k + 4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        };
        let found = if bytes.starts_with(b"\x7fELF") {
            let machine = match u16_at(18) {
                Some(62) => "x86-64",
                Some(183) => "aarch64",
                Some(3) => "x86",
                Some(40) => "ARM",
                _ => "other",
            };
            let kind = match u16_at(16) {
                Some(3) => "shared object",
                Some(2) => "executable",
                Some(1) => "relocatable object",
                _ => "file",
            };
            format!("an ELF {machine} {kind}")
        } else if bytes.starts_with(b"MZ") {
            let pe = u32_at(0x3c).map(|o| o as usize);
            match pe.filter(|&o| bytes.get(o..o + 4) == Some(b"PE\0\0")) {
                Some(o) => match u16_at(o + 4) {
                    Some(0x8664) => "a PE x86-64 image".to_string(),
                    Some(0xaa64) => "a PE ARM64 image".to_string(),
                    Some(0x14c) => "a PE x86 image".to_string(),
                    _ => "a PE image of another machine".to_string(),
                },
                None => "a DOS executable".to_string(),
            }
        } else if bytes.starts_with(&[0xcf, 0xfa, 0xed, 0xfe]) {
            "a Mach-O 64-bit image".to_string()
        } else if bytes.starts_with(&[0xca, 0xfe, 0xba, 0xbe]) {
            "a Mach-O universal image".to_string()
        } else {
            let head: String = bytes
                .iter()
                .take(16)
                .map(|&b| if b.is_ascii_graphic() || b == b' ' { b as char } else { '.' })
                .collect();
            format!("not a shared library (it begins '{head}')")
        };
        let (want, ok): (&str, &[&str]) = match self {
            Platform::Linux64 => ("an ELF x86-64 shared object", &["an ELF x86-64 shared object"]),
            Platform::Aarch64Linux => ("an ELF aarch64 shared object", &["an ELF aarch64 shared object"]),
            Platform::Win64 => ("a PE x86-64 image", &["a PE x86-64 image"]),
            Platform::Darwin64 => (
                "a Mach-O 64-bit or universal image",
                &["a Mach-O 64-bit image", "a Mach-O universal image"],
            ),
        };
        if ok.contains(&found.as_str()) {
            Ok(())
        } else {
            Err(format!(
                "not a {} runtime library: it is {found}, the platform needs {want}",
                self.folder()
            ))
        }
    }

    /// A platform by its folder name (`linux64`, `win64`, `aarch64-linux`, `darwin64`).
    pub fn parse(name: &str) -> Result<Platform, String> {
        Platform::ALL
            .into_iter()
            .find(|p| p.folder() == name)
            .ok_or_else(|| {
                format!(
                    "unknown platform '{name}': one of {}",
                    Platform::ALL.map(|p| p.folder()).join(", ")
                )
            })
    }
}

/// The runtime library for each platform an FMU will carry.
#[derive(Debug, Clone, PartialEq)]
pub struct Runtimes {
    /// (platform, library file), one per platform, in [`Platform::ALL`] order.
    pub libraries: Vec<(Platform, PathBuf)>,
}

impl From<&Path> for Runtimes {
    /// The host platform's runtime only.
    fn from(host: &Path) -> Runtimes {
        Runtimes {
            libraries: vec![(Platform::host().unwrap_or(Platform::Linux64), host.to_path_buf())],
        }
    }
}

impl From<&PathBuf> for Runtimes {
    fn from(host: &PathBuf) -> Runtimes {
        Runtimes::from(host.as_path())
    }
}

impl From<&Runtimes> for Runtimes {
    fn from(r: &Runtimes) -> Runtimes {
        r.clone()
    }
}

impl Runtimes {
    /// The host runtime `host` and every platform's runtime found in `dirs` (each laid
    /// out `<folder>/<one library>`); the host's own platform is taken from `host`.
    pub fn discover(host: &Path, dirs: &[PathBuf]) -> Result<Runtimes, PackageError> {
        let mut r = Runtimes::from(host);
        for dir in dirs {
            for p in Platform::ALL {
                if r.libraries.iter().any(|(q, _)| *q == p) {
                    continue;
                }
                if let Some(lib) = library_in(&dir.join(p.folder()), p)? {
                    r.libraries.push((p, lib));
                }
            }
        }
        r.libraries.sort_by_key(|(p, _)| *p);
        Ok(r)
    }

    /// Only the platforms `wanted`, each of which must have a runtime.
    pub fn select(mut self, wanted: &[Platform], looked: &[PathBuf]) -> Result<Runtimes, PackageError> {
        for w in wanted {
            if !self.libraries.iter().any(|(p, _)| p == w) {
                return Err(PackageError::PlatformMissing {
                    platform: w.folder().to_string(),
                    looked: looked
                        .iter()
                        .map(|d| d.join(w.folder()).display().to_string())
                        .collect::<Vec<_>>()
                        .join(", "),
                    found: self.names(),
                });
            }
        }
        self.libraries.retain(|(p, _)| wanted.contains(p));
        Ok(self)
    }

    /// The platform folders, comma-separated.
    pub fn names(&self) -> String {
        self.libraries
            .iter()
            .map(|(p, _)| p.folder())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The one library with `p`'s extension in `dir`, if `dir` exists. Two are an error:
/// which one would go into the FMU would be a guess.
fn library_in(dir: &Path, p: Platform) -> Result<Option<PathBuf>, PackageError> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(None);
    };
    let mut libs: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|f| f.is_file() && f.extension().is_some_and(|e| e == p.extension()))
        .collect();
    libs.sort();
    match libs.len() {
        0 => Ok(None),
        1 => Ok(libs.pop()),
        _ => Err(PackageError::Io {
            path: dir.display().to_string(),
            source: std::io::Error::other(format!(
                "{} runtime libraries (*.{}) for {}; keep one",
                libs.len(),
                p.extension(),
                p.folder()
            )),
        }),
    }
}

/// Where the other platforms' runtimes are looked for: `explicit` if given, else
/// `$CONTACT_FMU_RUNTIMES`, else `runtimes/` next to the running executable (and next
/// to `target/<profile>/` for tests run from `deps/`).
pub fn runtime_dirs(explicit: Option<&Path>) -> Vec<PathBuf> {
    if let Some(d) = explicit {
        return vec![d.to_path_buf()];
    }
    if let Some(d) = std::env::var_os("CONTACT_FMU_RUNTIMES") {
        return vec![PathBuf::from(d)];
    }
    installed()
        .into_iter()
        .chain(beside_executable().iter().map(|d| d.join("runtimes")))
        .collect()
}

static INSTALLED: std::sync::RwLock<Option<PathBuf>> = std::sync::RwLock::new(None);

/// Sets the folder of runtimes installed with the program, laid out
/// `<platform>/<library>` (the Python package's `contact_fmu/runtimes/`): looked in
/// after `$CONTACT_FMU_RUNTIME(S)` and before the executable's folder, by
/// [`runtime_dirs`] and [`super::find_runtime`].
pub fn set_installed(dir: Option<PathBuf>) {
    *INSTALLED.write().unwrap_or_else(|e| e.into_inner()) = dir;
}

/// The folder [`set_installed`] set, if any.
pub fn installed() -> Option<PathBuf> {
    INSTALLED.read().unwrap_or_else(|e| e.into_inner()).clone()
}

/// The folder of the running executable, and for tests run from
/// `target/<profile>/deps` the profile folder above it: where the runtime library
/// and `runtimes/` are looked for by default.
pub fn beside_executable() -> Vec<PathBuf> {
    let mut dirs = vec![];
    if let Some(dir) = std::env::current_exe().ok().as_deref().and_then(Path::parent) {
        dirs.push(dir.to_path_buf());
        if dir.ends_with("deps") {
            if let Some(up) = dir.parent() {
                dirs.push(up.to_path_buf());
            }
        }
    }
    dirs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_one_library_per_platform_folder() {
        let d = tempfile::tempdir().unwrap();
        let host = d.path().join("libcontact_fmu_runtime.so");
        std::fs::write(&host, b"linux").unwrap();
        let dir = d.path().join("runtimes");
        for (folder, file) in [("win64", "contact_fmu_runtime.dll"), ("aarch64-linux", "libcontact_fmu_runtime.so")] {
            std::fs::create_dir_all(dir.join(folder)).unwrap();
            std::fs::write(dir.join(folder).join(file), b"x").unwrap();
        }
        // not a library of that platform: ignored
        std::fs::write(dir.join("win64").join("README.txt"), b"x").unwrap();
        let r = Runtimes::discover(&host, &[dir.clone()]).unwrap();
        assert_eq!(r.names(), "linux64, win64, aarch64-linux");
        let only = r.clone().select(&[Platform::Win64], &[dir.clone()]).unwrap();
        assert_eq!(only.names(), "win64");
        let e = r.select(&[Platform::Darwin64], &[dir.clone()]).unwrap_err().to_string();
        assert!(e.contains("darwin64") && e.contains("found: linux64, win64, aarch64-linux"), "{e}");
        // two DLLs: which one is meant?
        std::fs::write(dir.join("win64").join("other.dll"), b"x").unwrap();
        let e = Runtimes::discover(&host, &[dir]).unwrap_err().to_string();
        assert!(e.contains("2 runtime libraries (*.dll) for win64"), "{e}");
    }

    #[test]
    fn platform_names_round_trip() {
        for p in Platform::ALL {
            assert_eq!(Platform::parse(p.folder()).unwrap(), p);
        }
        assert!(Platform::parse("win32").unwrap_err().contains("linux64, win64, aarch64-linux, darwin64"));
    }
}

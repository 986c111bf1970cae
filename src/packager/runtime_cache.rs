//! The runtime libraries deflated once, copied into every FMU as they are.
//!
//! Deflating a 2-7 MB runtime library was nine tenths of packaging a scenario (perf,
//! issue 54). Each library is deflated once into a one-entry zip
//! `.runtime-cache/<SHA-256 of the library>.zip` beside the library (so every later
//! FMU, into any folder, finds it), or, where that folder cannot be written, under the
//! output folder; with the options the
//! archive writer uses for binaries (deflated, fixed timestamp, mode 755); packaging
//! copies that entry's compressed bytes into the FMU (`raw_copy_file_rename`), so the
//! FMU's entry is the one a fresh deflate would write. The key is the library's
//! content: a rebuilt runtime is deflated anew. The cache is written next to the
//! target and renamed, so packaging processes running side by side (a Dask sweep into
//! one folder) never read half a file; where the folder cannot be written, the entry
//! is deflated in memory for this FMU only.

use sha2::{Digest, Sha256};
use std::io::{Cursor, Write};
use std::path::Path;
use std::sync::Arc;

/// The folder under the output folder that holds the deflated runtimes.
pub const DIR: &str = ".runtime-cache";

/// The name of the one entry of a cached zip.
const ENTRY: &str = "runtime";

/// The entry options of a binary in an FMU (also what the cached entry carries).
pub fn binary_options() -> zip::write::SimpleFileOptions {
    zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .last_modified_time(zip::DateTime::default())
        .unix_permissions(0o755)
}

/// A one-entry zip (in memory) whose entry is `library` deflated.
fn deflate(library: &[u8]) -> zip::result::ZipResult<Vec<u8>> {
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    zip.start_file(ENTRY, binary_options())?;
    zip.write_all(library)?;
    Ok(zip.finish()?.into_inner())
}

/// Whether `zipped` is a readable one-entry zip of `len` bytes uncompressed.
fn holds(zipped: &[u8], len: usize) -> bool {
    zip::ZipArchive::new(Cursor::new(zipped))
        .and_then(|mut a| {
            a.by_index_raw(0)
                .map(|f| f.size() == len as u64 && f.name() == ENTRY)
        })
        .unwrap_or(false)
}

/// The one-entry zip of `library` deflated: from a `.runtime-cache/` in one of the
/// folders `places` (in order: the library's own, the output folder) when it is there,
/// else made and stored in the first of them that can be written.
pub fn deflated(library: &[u8], places: &[&Path]) -> zip::result::ZipResult<Vec<u8>> {
    let key = format!("{:x}", Sha256::digest(library));
    let file = format!("{key}.zip");
    for place in places {
        if let Ok(bytes) = std::fs::read(place.join(DIR).join(&file)) {
            if holds(&bytes, library.len()) {
                return Ok(bytes);
            }
        }
    }
    let bytes = deflate(library)?;
    // best effort: a cache that cannot be written costs speed, not the FMU
    for place in places {
        let dir = place.join(DIR);
        let tmp = dir.join(format!(".{key}.{}.tmp", std::process::id()));
        let stored = std::fs::create_dir_all(&dir)
            .and_then(|_| std::fs::write(&tmp, &bytes))
            .and_then(|_| std::fs::rename(&tmp, dir.join(&file)));
        if stored.is_ok() {
            break;
        }
        let _ = std::fs::remove_file(&tmp);
    }
    Ok(bytes)
}

/// What is remembered of a library file: its path, length and modification time.
type FileKey = (std::path::PathBuf, u64, std::time::SystemTime);

static REMEMBERED: std::sync::Mutex<Vec<(FileKey, Arc<Vec<u8>>)>> = std::sync::Mutex::new(Vec::new());

/// `make()` (a library file `lib` checked and [`deflated`]), remembered in this process
/// by the file's path, length and modification time: a sweep that packages thousands
/// of variants in one process (the Python API) reads and hashes each runtime once.
/// A file whose metadata cannot be read is not remembered.
pub fn remembered<E>(
    lib: &Path,
    make: impl FnOnce() -> Result<Vec<u8>, E>,
) -> Result<Arc<Vec<u8>>, E> {
    let key = std::fs::metadata(lib)
        .and_then(|m| Ok((lib.to_path_buf(), m.len(), m.modified()?)))
        .ok();
    let lock = || REMEMBERED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(k) = &key {
        if let Some((_, z)) = lock().iter().find(|(q, _)| q == k) {
            return Ok(z.clone());
        }
    }
    let zipped = Arc::new(make()?);
    if let Some(k) = key {
        let mut memo = lock();
        // one entry per path: a rebuilt library replaces its old entry
        memo.retain(|(q, _)| q.0 != k.0);
        memo.push((k, zipped.clone()));
    }
    Ok(zipped)
}

/// Copies the entry of `zipped` (from [`deflated`]) into `zip` as `name`, as it is.
pub fn copy_into<W: Write + std::io::Seek>(
    zip: &mut zip::ZipWriter<W>,
    zipped: &[u8],
    name: &str,
) -> zip::result::ZipResult<()> {
    let mut archive = zip::ZipArchive::new(Cursor::new(zipped))?;
    let entry = archive.by_index_raw(0)?;
    zip.raw_copy_file_rename(entry, name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn a_cached_runtime_reads_back_and_is_reused() {
        let dir = tempfile::tempdir().unwrap();
        let library: Vec<u8> = (0..100_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        let first = deflated(&library, &[dir.path()]).unwrap();
        let cached = std::fs::read_dir(dir.path().join(DIR)).unwrap().count();
        assert_eq!(cached, 1);
        assert_eq!(deflated(&library, &[dir.path()]).unwrap(), first);
        // a truncated cache file is made anew
        let file = std::fs::read_dir(dir.path().join(DIR))
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        std::fs::write(&file, &first[..first.len() / 2]).unwrap();
        assert_eq!(deflated(&library, &[dir.path()]).unwrap(), first);
        // copied into an archive, it reads back as the library, with mode 755
        let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
        copy_into(&mut zip, &first, "binaries/linux64/x.so").unwrap();
        let bytes = zip.finish().unwrap().into_inner();
        let mut a = zip::ZipArchive::new(Cursor::new(bytes)).unwrap();
        let mut f = a.by_name("binaries/linux64/x.so").unwrap();
        assert_eq!(f.unix_mode().map(|m| m & 0o777), Some(0o755));
        let mut back = vec![];
        f.read_to_end(&mut back).unwrap();
        assert_eq!(back, library);
        // another library: another entry
        let other = deflated(&library[1..], &[dir.path()]).unwrap();
        assert_ne!(other, first);
        assert_eq!(std::fs::read_dir(dir.path().join(DIR)).unwrap().count(), 2);
    }

    #[test]
    fn an_unwritable_cache_still_packages() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        // the first place's cache folder taken by a file: the second one is used
        std::fs::write(a.path().join(DIR), b"not a folder").unwrap();
        let library = vec![7u8; 10_000];
        let z = deflated(&library, &[a.path(), b.path()]).unwrap();
        assert!(holds(&z, library.len()));
        assert_eq!(std::fs::read_dir(b.path().join(DIR)).unwrap().count(), 1);
        // neither: made in memory
        std::fs::write(b.path().join("x"), b"").unwrap();
        let z = deflated(&library, &[&a.path().join(DIR), &b.path().join("x")]).unwrap();
        assert!(holds(&z, library.len()));
    }

    #[test]
    fn a_library_is_made_once_per_process_until_it_changes() {
        let d = tempfile::tempdir().unwrap();
        let lib = d.path().join("lib.so");
        std::fs::write(&lib, b"first").unwrap();
        let calls = std::cell::Cell::new(0);
        let make = || -> Result<Vec<u8>, ()> {
            calls.set(calls.get() + 1);
            Ok(std::fs::read(&lib).unwrap())
        };
        assert_eq!(*remembered(&lib, make).unwrap(), b"first");
        assert_eq!(*remembered(&lib, make).unwrap(), b"first");
        assert_eq!(calls.get(), 1);
        // rebuilt: another length (and time) is another library
        std::fs::write(&lib, b"second one").unwrap();
        assert_eq!(*remembered(&lib, make).unwrap(), b"second one");
        assert_eq!(calls.get(), 2);
        // an error is not remembered
        let failing = || -> Result<Vec<u8>, &str> { Err("no") };
        assert!(remembered(&d.path().join("missing.so"), failing).is_err());
    }
}

//! The runtimes installed with a program (the Python package's `contact_fmu/runtimes/`,
//! `packager::platforms::set_installed`): found after the environment variables and
//! before the executable's folder. Its own test binary: the setting is process-wide.

use contact_fmu::packager::{self, platforms, Platform};

#[test]
fn installed_runtimes_are_found_for_the_host_and_the_other_platforms() {
    let d = tempfile::tempdir().unwrap();
    let host = Platform::host().expect("a supported host");
    // a real host runtime, and a fake other platform's (a PE image header is enough
    // for discovery; the content check runs when packaging)
    let real = packager::find_runtime(None).expect("the runtime built beside the tests");
    std::fs::create_dir_all(d.path().join(host.folder())).unwrap();
    let installed = d.path().join(host.folder()).join(packager::RUNTIME_FILE_NAME);
    std::fs::copy(&real, &installed).unwrap();
    std::fs::create_dir_all(d.path().join("win64")).unwrap();
    std::fs::write(d.path().join("win64/contact_fmu_runtime.dll"), b"MZ").unwrap();

    if std::env::var_os("CONTACT_FMU_RUNTIME").is_some()
        || std::env::var_os("CONTACT_FMU_RUNTIMES").is_some()
    {
        eprintln!("CONTACT_FMU_RUNTIME(S) set: they come first, nothing to check here");
        return;
    }
    platforms::set_installed(Some(d.path().to_path_buf()));
    assert_eq!(packager::find_runtime(None).unwrap(), installed);
    assert_eq!(platforms::runtime_dirs(None)[0], d.path());
    let found = packager::Runtimes::discover(&installed, &platforms::runtime_dirs(None)).unwrap();
    assert!(found.libraries.iter().any(|(p, _)| *p == Platform::Win64), "{found:?}");
    // an explicit runtime still wins
    assert_eq!(packager::find_runtime(Some(&real)).unwrap(), real);
    // cleared: back to the executable's folder
    platforms::set_installed(None);
    assert_eq!(packager::find_runtime(None).unwrap(), real);
    assert!(!platforms::runtime_dirs(None).contains(&d.path().to_path_buf()));
}

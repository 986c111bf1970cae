//! The packager and the CLI: archive layout, checked-in modelDescription.xml, the
//! runtime's exports and dependencies, errors for bad scenarios.

mod common;

use common::*;
use contact_fmu::packager::{self, model_description};
use contact_fmu::scenario;
use std::io::Read;
use std::process::Command;

/// Every example scenario file.
fn examples() -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(root().join("examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    v.sort();
    assert!(!v.is_empty());
    v
}

/// The XML with its generation time blanked out.
fn without_date(xml: &str) -> String {
    let re_start = xml
        .find("generationDateAndTime=\"")
        .expect("has a generation date")
        + "generationDateAndTime=\"".len();
    let re_end = re_start + xml[re_start..].find('"').unwrap();
    format!("{}{}", &xml[..re_start], &xml[re_end..])
}

#[test]
fn the_checked_in_model_descriptions_match_the_generator() {
    for path in examples() {
        let s = scenario::load(&path).unwrap();
        let generated =
            packager::contents(&s, &model_description::timestamp_now()).model_description;
        let file = root()
            .join("modelDescription")
            .join(format!("{}.xml", s.model_identifier));
        let checked_in = std::fs::read_to_string(&file)
            .unwrap_or_else(|_| panic!("{} is missing", file.display()));
        assert!(
            without_date(&generated) == without_date(&checked_in),
            "{} differs from what the generator writes for {}.\n  Regenerate: cargo run -- model-description examples/*.json",
            file.display(),
            path.display()
        );
    }
}

#[test]
fn the_checked_in_schema_matches_the_scenario_types() {
    let checked_in =
        std::fs::read_to_string(root().join("examples/schema/scenario.schema.json")).unwrap();
    assert!(
        checked_in == scenario::json_schema(),
        "examples/schema/scenario.schema.json is stale. Regenerate: cargo run -- schema > examples/schema/scenario.schema.json"
    );
}

#[test]
fn an_fmu_holds_the_description_the_runtime_the_scenario_and_its_documentation() {
    let (_dir, fmu) = package_example("bbcc_sphere_drop");
    let mut zip = zip::ZipArchive::new(std::fs::File::open(&fmu).unwrap()).unwrap();
    let mut names: Vec<String> = zip.file_names().map(String::from).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "binaries/linux64/bbcc_sphere_drop.so",
            "documentation/index.html",
            "modelDescription.xml",
            "resources/scenario.json"
        ]
    );
    let so = zip.by_name("binaries/linux64/bbcc_sphere_drop.so").unwrap();
    assert_eq!(so.unix_mode().unwrap() & 0o777, 0o755);
    assert_eq!(
        so.size(),
        std::fs::metadata(runtime()).unwrap().len(),
        "the runtime is copied unchanged"
    );
    drop(so);
    let mut xml = String::new();
    zip.by_name("modelDescription.xml")
        .unwrap()
        .read_to_string(&mut xml)
        .unwrap();
    let mut json = String::new();
    zip.by_name("resources/scenario.json")
        .unwrap()
        .read_to_string(&mut json)
        .unwrap();
    let s = scenario::parse_str(&json, "resources/scenario.json").unwrap();
    assert_eq!(
        json,
        s.canonical_json(),
        "resources hold the canonical scenario"
    );
    assert!(xml.contains(&format!("guid=\"{}\"", s.guid())));
    let mut doc = String::new();
    zip.by_name("documentation/index.html")
        .unwrap()
        .read_to_string(&mut doc)
        .unwrap();
    assert!(doc.contains("<code>ball.f[3]</code>") && doc.contains("N.m"));
}

/// FMI 2.0 common and co-simulation functions (FMI 2.0 sections 2.1 and 4.2).
const FMI2_FUNCTIONS: &[&str] = &[
    "fmi2GetTypesPlatform",
    "fmi2GetVersion",
    "fmi2SetDebugLogging",
    "fmi2Instantiate",
    "fmi2FreeInstance",
    "fmi2SetupExperiment",
    "fmi2EnterInitializationMode",
    "fmi2ExitInitializationMode",
    "fmi2Terminate",
    "fmi2Reset",
    "fmi2GetReal",
    "fmi2GetInteger",
    "fmi2GetBoolean",
    "fmi2GetString",
    "fmi2SetReal",
    "fmi2SetInteger",
    "fmi2SetBoolean",
    "fmi2SetString",
    "fmi2GetFMUstate",
    "fmi2SetFMUstate",
    "fmi2FreeFMUstate",
    "fmi2SerializedFMUstateSize",
    "fmi2SerializeFMUstate",
    "fmi2DeSerializeFMUstate",
    "fmi2GetDirectionalDerivative",
    "fmi2SetRealInputDerivatives",
    "fmi2GetRealOutputDerivatives",
    "fmi2DoStep",
    "fmi2CancelStep",
    "fmi2GetStatus",
    "fmi2GetRealStatus",
    "fmi2GetIntegerStatus",
    "fmi2GetBooleanStatus",
    "fmi2GetStringStatus",
];

#[test]
fn the_runtime_exports_every_fmi2_function_and_needs_only_libc() {
    let so = runtime();
    let nm = Command::new("nm")
        .args(["-D", "--defined-only"])
        .arg(&so)
        .output()
        .expect("nm (binutils) runs");
    let symbols = String::from_utf8_lossy(&nm.stdout);
    for f in FMI2_FUNCTIONS {
        assert!(
            symbols.lines().any(|l| l.ends_with(&format!(" T {f}"))),
            "{f} is not exported by {}",
            so.display()
        );
    }
    let ldd = Command::new("ldd").arg(&so).output().expect("ldd runs");
    let libs = String::from_utf8_lossy(&ldd.stdout);
    for line in libs.lines() {
        let lib = line.split_whitespace().next().unwrap_or("");
        let allowed = [
            "linux-vdso.so",
            "libc.so",
            "libm.so",
            "libpthread.so",
            "libdl.so",
            "/lib64/ld-linux-x86-64.so",
            "ld-linux-x86-64.so",
        ];
        assert!(
            allowed.iter().any(|a| lib.starts_with(a)),
            "the runtime needs {lib}:\n{libs}"
        );
    }
}

#[test]
fn the_cli_reports_bad_scenarios_with_file_and_field_path() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(root().join("examples/bbcc_sphere_drop.json"))
        .unwrap()
        .replace("\"radius\": 0.1", "\"radius\": -0.2");
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_contact-fmu"))
        .args(["package", "-o"])
        .arg(dir.path())
        .arg(&bad)
        .env("CONTACT_FMU_RUNTIME", runtime())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("bad.json")
            && stderr.contains("bodies[0].shape.radius: must be > 0, got -0.2"),
        "{stderr}"
    );
    assert!(!dir.path().join("bbcc_sphere_drop.fmu").exists());

    let out = Command::new(env!("CARGO_BIN_EXE_contact-fmu"))
        .args(["check"])
        .arg(dir.path().join("missing.json"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing.json: cannot read the scenario"));
}

#[test]
fn the_cli_packages_every_example() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_contact-fmu"))
        .args(["package", "-o"])
        .arg(dir.path())
        .args(examples())
        .env("CONTACT_FMU_RUNTIME", runtime())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for path in examples() {
        let s = scenario::load(&path).unwrap();
        assert!(dir
            .path()
            .join(format!("{}.fmu", s.model_identifier))
            .is_file());
    }
}

#[test]
fn a_value_that_makes_a_start_value_infinite_is_refused_before_packaging() {
    // issue 26: a radius of 1e308 wrote start="inf" (the default inertia) into
    // modelDescription.xml, which is not an xs:double. Sizes are now bounded (1e4 m),
    // so such a radius is refused by validation; a mass of 1e308 on the largest sphere
    // still overflows the derived inertia, which check_starts refuses.
    let text = r#"{"name": "huge", "model_identifier": "huge",
        "default_experiment": {"stop_time": 1.0, "step_size": 0.001},
        "terrain": {"surface": {"type": "flat"}},
        "bodies": [{"name": "b", "shape": {"type": "sphere", "radius": 1e4},
                    "motion": {"type": "free", "mass": 1e308}}]}"#;
    let s = contact_fmu::scenario::parse_str(text, "huge.json").unwrap();
    let e = contact_fmu::packager::check_starts(&s, "huge.json")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("huge.json: ") && e.contains("'b.inertia[1]'") && e.contains("inf"),
        "{e}"
    );
    let ok = text.replace("1e308", "1.0");
    let s = contact_fmu::scenario::parse_str(&ok, "ok.json").unwrap();
    assert!(contact_fmu::packager::check_starts(&s, "ok.json").is_ok());
    let e = contact_fmu::scenario::parse_str(&ok.replace("1e4", "1e308"), "r.json")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("bodies[0].shape.radius: must be at most 1e4 m, got 1e308"),
        "{e}"
    );
}

#[test]
fn start_values_and_patches_set_parameters_of_the_packaged_fmu() {
    // a scenario's `start_values` (here from a merge patch, as `contact-fmu fit` writes
    // it) become the modelDescription's start values and the instance's values
    let dir = tempfile::tempdir().unwrap();
    let patch = dir.path().join("patch.json");
    std::fs::write(
        &patch,
        r#"{"start_values": {"ball.mass": 2.5, "terrain.zeta": 0.8}, "description": null}"#,
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_contact-fmu"))
        .args(["package", "-o"])
        .arg(dir.path())
        .arg(root().join("examples/bbcc_sphere_drop.json"))
        .arg("--patch")
        .arg(&patch)
        .env("CONTACT_FMU_RUNTIME", runtime())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fmu = dir.path().join("bbcc_sphere_drop.fmu");
    let mut xml = String::new();
    zip::ZipArchive::new(std::fs::File::open(&fmu).unwrap())
        .unwrap()
        .by_name("modelDescription.xml")
        .unwrap()
        .read_to_string(&mut xml)
        .unwrap();
    let start_of = |name: &str| {
        let at = xml.find(&format!("name=\"{name}\"")).unwrap();
        let s = &xml[at..];
        let s = &s[s.find("start=\"").unwrap() + 7..];
        s[..s.find('"').unwrap()].to_string()
    };
    assert_eq!(start_of("ball.mass"), "2.5");
    assert_eq!(start_of("terrain.zeta"), "0.8");
    let s = scenario::load_patched(
        &root().join("examples/bbcc_sphere_drop.json"),
        std::slice::from_ref(&patch),
    )
    .unwrap();
    assert!(s.description.is_empty(), "null deletes a field (RFC 7386)");
    let mut w = contact_fmu::cosim::World::new(&s, None).unwrap();
    let vr = w.table().by_name("ball.mass").unwrap().vr;
    let mut m = [0.0];
    w.get_reals(&[vr], &mut m).unwrap();
    assert_eq!(m[0], 2.5);

    // unknown names, outputs, bounds and types are refused with the field
    let bad = |values: &str| {
        let text = std::fs::read_to_string(root().join("examples/bbcc_sphere_drop.json"))
            .unwrap()
            .replacen('{', &format!("{{\"start_values\": {values},"), 1);
        scenario::parse_str(&text, "s.json")
            .unwrap_err()
            .to_string()
    };
    let e = bad(r#"{"ball.mas": 1.0}"#);
    assert!(
        e.contains(r#"start_values["ball.mas"]: no FMI variable 'ball.mas'"#)
            && e.contains("ball.mass"),
        "{e}"
    );
    let e = bad(r#"{"ball.r[3]": 1.0}"#);
    assert!(e.contains("has causality output"), "{e}");
    let e = bad(r#"{"ball.mass": -1.0}"#);
    assert!(
        e.contains(r#"start_values["ball.mass"]: 'ball.mass': must be > 0"#),
        "{e}"
    );
}

#[test]
fn broken_side_files_are_refused_by_check_and_package_not_at_instantiation() {
    // issue 26: the files a scenario names are read as the FMU reads them, by `check`
    // and `package`, with the scenario and what is wrong (line, vertex, class); and a
    // scenario given by its bare name (parent folder "") finds its files
    let dir = tempfile::tempdir().unwrap();
    for f in [
        "pcm_bouncing_bubbles.json",
        "pcm_bubbles_container.obj",
        "scm_soil_map.json",
        "scm_soil_map.csv",
    ] {
        let text = std::fs::read_to_string(root().join("examples").join(f)).unwrap();
        let text = text.replace("\"$schema\": \"schema/scenario.schema.json\",", "");
        std::fs::write(dir.path().join(f), text).unwrap();
    }
    let cli = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_contact-fmu"))
            .args(args)
            .current_dir(dir.path())
            .env("CONTACT_FMU_RUNTIME", runtime())
            .output()
            .unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    };
    let (ok, e) = cli(&["check", "pcm_bouncing_bubbles.json", "scm_soil_map.json"]);
    assert!(ok, "{e}");
    let good_csv = std::fs::read_to_string(dir.path().join("scm_soil_map.csv")).unwrap();
    let cases: [(&str, String, &str, &str); 4] = [
        (
            "pcm_bubbles_container.obj",
            "not an OBJ\n".into(),
            "pcm_bouncing_bubbles.json",
            "no faces",
        ),
        (
            "pcm_bubbles_container.obj",
            "v 0 0 0\nv 1 0 0\nv nan 1 0\nf 1 2 3\n".into(),
            "pcm_bouncing_bubbles.json",
            "vertex 3 is not finite",
        ),
        (
            "scm_soil_map.csv",
            good_csv.replacen("\n0,", "\nx,", 1),
            "scm_soil_map.json",
            "line 3: invalid float literal",
        ),
        (
            "scm_soil_map.csv",
            good_csv.replacen("\n0,", "\n7,", 1),
            "scm_soil_map.json",
            "uses class 7",
        ),
    ];
    for (file, text, scenario, want) in cases {
        let keep = std::fs::read_to_string(dir.path().join(file)).unwrap();
        std::fs::write(dir.path().join(file), text).unwrap();
        for cmd in ["check", "package"] {
            let (ok, e) = cli(&[cmd, scenario, "-o", "out"][..if cmd == "check" { 2 } else { 4 }]);
            assert!(
                !ok && e.contains(scenario) && e.contains(want),
                "{cmd} {file}: {e}"
            );
        }
        std::fs::write(dir.path().join(file), keep).unwrap();
    }
    assert!(!dir.path().join("out/pcm_bouncing_bubbles.fmu").exists());
}

#[test]
fn the_cli_puts_every_platform_runtime_into_the_fmu_and_names_a_missing_one() {
    let dir = tempfile::tempdir().unwrap();
    let runtimes = dir.path().join("runtimes");
    // stand-ins: the packager copies runtimes unchanged, whatever their bytes
    for (folder, file) in [("win64", "contact_fmu_runtime.dll"), ("aarch64-linux", "libcontact_fmu_runtime.so")] {
        std::fs::create_dir_all(runtimes.join(folder)).unwrap();
        std::fs::write(runtimes.join(folder).join(file), folder.as_bytes()).unwrap();
    }
    let example = root().join("examples/bbcc_sphere_drop.json");
    let run = |platforms: &str| {
        Command::new(env!("CARGO_BIN_EXE_contact-fmu"))
            .args(["package", "-o"])
            .arg(dir.path())
            .arg("--runtimes")
            .arg(&runtimes)
            .args(["--platforms", platforms])
            .arg(&example)
            .env("CONTACT_FMU_RUNTIME", runtime())
            .output()
            .unwrap()
    };
    let out = run("linux64,win64,aarch64-linux");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let fmu = dir.path().join("bbcc_sphere_drop.fmu");
    let mut zip = zip::ZipArchive::new(std::fs::File::open(&fmu).unwrap()).unwrap();
    let names: Vec<String> = zip.file_names().map(String::from).collect();
    for entry in [
        "binaries/linux64/bbcc_sphere_drop.so",
        "binaries/win64/bbcc_sphere_drop.dll",
        "binaries/aarch64-linux/bbcc_sphere_drop.so",
    ] {
        assert!(names.iter().any(|n| n == entry), "{entry} not in {names:?}");
    }
    let mut dll = String::new();
    zip.by_name("binaries/win64/bbcc_sphere_drop.dll").unwrap().read_to_string(&mut dll).unwrap();
    assert_eq!(dll, "win64");

    let out = run("win64");
    assert!(out.status.success());
    let zip = zip::ZipArchive::new(std::fs::File::open(&fmu).unwrap()).unwrap();
    let binaries: Vec<&str> = zip.file_names().filter(|n| n.starts_with("binaries/")).collect();
    assert_eq!(binaries, ["binaries/win64/bbcc_sphere_drop.dll"]);

    let out = run("linux64,darwin64");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no FMU runtime for the platform 'darwin64'") && err.contains("ci/cross.sh"), "{err}");
    let out = run("win32");
    assert!(String::from_utf8_lossy(&out.stderr).contains("--platforms: unknown platform 'win32'"));
}

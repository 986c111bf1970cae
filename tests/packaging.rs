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
            "line 3: vertex coordinate 1 is not finite",
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
    // stand-ins: the headers of a PE x86-64 image and an ELF aarch64 shared object
    // (what the packager checks), then the folder's name; copied unchanged
    let mut pe = vec![0u8; 0x48];
    pe[..2].copy_from_slice(b"MZ");
    pe[0x3c] = 0x40;
    pe[0x40..0x44].copy_from_slice(b"PE\0\0");
    pe[0x44..0x46].copy_from_slice(&0x8664u16.to_le_bytes());
    let mut elf = vec![0u8; 20];
    elf[..4].copy_from_slice(b"\x7fELF");
    elf[16] = 3;
    elf[18] = 183;
    for (folder, file, head) in [("win64", "contact_fmu_runtime.dll", &pe), ("aarch64-linux", "libcontact_fmu_runtime.so", &elf)] {
        std::fs::create_dir_all(runtimes.join(folder)).unwrap();
        let mut bytes = head.clone();
        bytes.extend(folder.as_bytes());
        std::fs::write(runtimes.join(folder).join(file), bytes).unwrap();
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
    let mut dll = vec![];
    zip.by_name("binaries/win64/bbcc_sphere_drop.dll").unwrap().read_to_end(&mut dll).unwrap();
    assert!(dll.starts_with(&pe) && dll.ends_with(b"win64"));

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
    // issue 50: a file that is not the platform's library, and a --runtimes folder
    // that does not exist, are refused, not packaged
    std::fs::write(runtimes.join("win64/contact_fmu_runtime.dll"), &elf).unwrap();
    let err = String::from_utf8_lossy(&run("win64").stderr).to_string();
    assert!(
        err.contains("contact_fmu_runtime.dll") && err.contains("not a win64 runtime library: it is an ELF aarch64 shared object"),
        "{err}"
    );
    std::fs::write(dir.path().join("notes.txt"), "root:x:0:0").unwrap();
    let (ok, err) = cli_in(dir.path(), &["package", "--runtime", "notes.txt", "-o", "bad", example.to_str().unwrap()]);
    assert!(!ok && err.contains("not a linux64 runtime library") && err.contains("not a shared library"), "{err}");
    let (ok, err) = cli_in(dir.path(), &["package", "--runtimes", "no/such/dir", "-o", "bad", example.to_str().unwrap()]);
    assert!(!ok && err.contains("--runtimes no/such/dir: not a folder"), "{err}");
    assert!(!dir.path().join("bad").exists());
}

/// Runs the CLI in `dir` with the test build's runtime: (success, stderr).
fn cli_in(dir: &std::path::Path, args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_contact-fmu"))
        .args(args)
        .current_dir(dir)
        .env("CONTACT_FMU_RUNTIME", runtime())
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

#[test]
fn broken_and_degenerate_mesh_files_are_refused_with_file_line_and_field() {
    // issue 50, items 1 and 5: every class names the scenario, the field pointing to
    // the file, the file, and the line or element; check and package refuse alike
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(root().join("examples/pcm_bouncing_bubbles.json")).unwrap();
    let text = text.replace("\"$schema\": \"schema/scenario.schema.json\",", "");
    let mut stl = vec![b'x'; 80];
    stl.extend(1000u32.to_le_bytes());
    stl.extend([0u8; 150]);
    let ply_head = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n";
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("zero.obj", b"v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\nf 1 3 2\n".to_vec(), "all 2 triangles have zero area"),
        ("inward.obj", b"v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 4 2\nf 1 3 4\nf 2 4 3\n".to_vec(), "encloses a negative volume"),
        ("index.obj", b"v 0 0 0\nv 1 0 0\nv 0 1 0\n\nf 1 2 9\n".to_vec(), "face 1 (line 5) names vertex 9, but the file has 3 vertices"),
        ("image.obj", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec(), "line 1: byte 0x89 is not text (UTF-8), so this is not an OBJ mesh: it looks like a PNG image"),
        ("short.stl", stl, "header counts 1000 triangles, which take 84 + 50 x 1000 = 50084 bytes, but the file has 234 bytes"),
        ("nan.stl", b"solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex nan 0 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid x\n".to_vec(), "line 5: vertex coordinate 1 is not finite"),
        ("header.ply", ply_head.replace("float y", "flot y").into_bytes(), "line 5: expected 'property <type> <name>'"),
        ("huge.ply", ply_head.replace("vertex 3", "vertex 4000000000").into_bytes(), "need at least"),
        ("data.ply", format!("{ply_head}0 0 0\n1 0 x\n0 1 0\n3 0 1 2\n").into_bytes(), "line 11: could not read element line. ('1 0 x')"),
    ];
    for (file, bytes, want) in &cases {
        std::fs::write(dir.path().join(file), bytes).unwrap();
        let scenario = format!("s_{file}.json");
        std::fs::write(
            dir.path().join(&scenario),
            text.replace("pcm_bubbles_container.obj", file),
        )
        .unwrap();
        let (ok, e) = cli_in(dir.path(), &["check", &scenario]);
        assert!(
            !ok && e.contains(&scenario) && e.contains("bodies[0].shape.file") && e.contains(file) && e.contains(want),
            "{file}: {e}"
        );
    }
    let (ok, e) = cli_in(dir.path(), &["package", "s_zero.obj.json", "-o", "out"]);
    assert!(!ok && e.contains("zero area"), "{e}");
    assert!(!dir.path().join("out").exists());
}

#[test]
fn pcm_meshes_too_large_to_build_are_refused_with_the_count_and_what_fits() {
    // issue 50, item 2: 8 subdivisions of the 4,096-triangle torus (268 million
    // triangles) and a cuboid cut into micrometre squares are refused before anything
    // that large is allocated
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(root().join("examples/pcm_torus_sphere.json")).unwrap();
    let mut s: serde_json::Value = serde_json::from_str(&text).unwrap();
    s.as_object_mut().unwrap().remove("$schema");
    s["pcm"]["meshing"]["torus"]["subdivisions"] = serde_json::json!(8);
    std::fs::write(dir.path().join("sub.json"), s.to_string()).unwrap();
    s["pcm"]["meshing"]["torus"]["subdivisions"] = serde_json::json!(0);
    s["bodies"][0]["shape"] = serde_json::json!({ "type": "cuboid", "size": [1.0, 1.0, 1.0] });
    s["pcm"]["meshing"]["torus"] = serde_json::json!({ "edge": 1e-6 });
    std::fs::write(dir.path().join("edge.json"), s.to_string()).unwrap();
    let t0 = std::time::Instant::now();
    for (file, want) in [
        ("sub.json", "268435456 triangles (4096 x 4^8 with pcm.meshing.torus.subdivisions = 8)"),
        ("sub.json", "pcm.meshing.torus.subdivisions 4 is the most that fits"),
        ("edge.json", "even unsubdivided it is too fine"),
    ] {
        for cmd in [&["check", file][..], &["package", file, "-o", "out"][..]] {
            let (ok, e) = cli_in(dir.path(), cmd);
            assert!(!ok && e.contains(file) && e.contains(want), "{cmd:?}: {e}");
        }
    }
    assert!(!dir.path().join("out").exists());
    assert!(t0.elapsed().as_secs() < 20, "{:?}", t0.elapsed());
}

#[test]
fn ssp_checks_param_values_as_start_values_and_names_unconnected_files() {
    // issue 50, items 3 and 5
    let dir = tempfile::tempdir().unwrap();
    let ex = |n: &str| root().join("examples").join(n).display().to_string();
    let (body, contact) = (ex("cosim_sphere_body.json"), ex("cosim_sphere_contact.json"));
    for (param, want) in [
        ("cosim_sphere_contact:terrain.zeta=-0.5", "'terrain.zeta': must be > 0, got -0.5"),
        ("cosim_sphere_contact:terrain.nope=1", "no Real variable 'terrain.nope'"),
    ] {
        let (ok, e) = cli_in(dir.path(), &["ssp", &body, &contact, "-o", "x.ssp", "--param", param]);
        assert!(!ok && e.contains(&format!("--param {}", param.split('=').next().unwrap())) && e.contains(want), "{e}");
    }
    let (ok, e) = cli_in(dir.path(), &["ssp", &body, &contact, "-o", "x.ssp", "--param", "cosim_sphere_contact:terrain.zeta=0.8"]);
    assert!(ok, "{e}");
    std::fs::remove_file(dir.path().join("x.ssp")).unwrap();
    let wheel = ex("terra_single_wheel.json");
    let (ok, e) = cli_in(dir.path(), &["ssp", &body, &wheel, "-o", "y.ssp"]);
    assert!(!ok && e.contains("share no signal") && e.contains(&body) && e.contains(&wheel), "{e}");
    assert!(!dir.path().join("y.ssp").exists() && !dir.path().join("x.ssp").exists());
}

//! BBCC bodies from mesh files: the OBJ is resolved against the scenario, refused when
//! it leaves the scenario's folder, packaged under resources/ and read back by the
//! runtime; a convex-hull cube and a compound rest on the ground where they should.

mod common;

use common::*;
use contact_fmu::{packager, scenario};

fn write_scenario(dir: &std::path::Path, shape: serde_json::Value) -> std::path::PathBuf {
    let s = serde_json::json!({
        "name": "mesh drop", "model_identifier": "mesh_drop",
        "default_experiment": {"stop_time": 2.0, "step_size": 0.001}, "model_step": 1e-4,
        "terrain": {"surface": {"type": "flat"}, "material": {"E": 1e7, "nu": 0.3, "zeta": 0.5, "mu": 0.5}},
        "bodies": [{"name": "rock", "shape": shape, "material": {"E": 1e7, "nu": 0.3, "zeta": 0.5, "mu": 0.5},
                    "motion": {"type": "free", "mass": 1.0, "inertia": [0.02, 0.02, 0.02], "position": [0.0, 0.0, 0.3]}}],
        "bbcc": {"pairs": [["rock", "terrain"], ]}
    });
    let path = dir.join("scenario.json");
    std::fs::write(&path, serde_json::to_string_pretty(&s).unwrap()).unwrap();
    path
}

const CUBE_OBJ: &str = "# unit cube centred at the origin\nv -0.1 -0.1 -0.1\nv 0.1 -0.1 -0.1\nv 0.1 0.1 -0.1\nv -0.1 0.1 -0.1\nv -0.1 -0.1 0.1\nv 0.1 -0.1 0.1\nv 0.1 0.1 0.1\nv -0.1 0.1 0.1\nf 1 2 3 4\n";

#[test]
fn a_convex_mesh_from_an_obj_file_is_packaged_and_rests_on_the_ground() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("meshes")).unwrap();
    std::fs::write(dir.path().join("meshes/cube.obj"), CUBE_OBJ).unwrap();
    let path = write_scenario(
        dir.path(),
        serde_json::json!({"type": "convex_mesh", "file": "meshes/cube.obj"}),
    );
    let out = dir.path().join("out");
    let fmu = packager::package(&path, &out, &runtime()).unwrap();
    let mut zip = zip::ZipArchive::new(std::fs::File::open(&fmu).unwrap()).unwrap();
    assert!(
        zip.by_name("resources/meshes/cube.obj").is_ok(),
        "the mesh travels in the FMU"
    );
    let import = load(&fmu);
    let mut inst = start(&import, "mesh");
    let z = vr(&import, "rock.r[3]");
    let mut t = 0.0;
    for _ in 0..2000 {
        step(&mut inst, t, 1e-3);
        t += 1e-3;
    }
    let rest = get(&mut inst, &[z])[0];
    // half the cube's height above the ground, less a penetration under 1 mm
    assert!(rest < 0.1 && rest > 0.099, "rest height {rest}");
}

#[test]
fn a_mesh_path_that_leaves_the_scenario_folder_is_refused_with_its_field() {
    let dir = tempfile::tempdir().unwrap();
    let inner = dir.path().join("inner");
    std::fs::create_dir(&inner).unwrap();
    std::fs::write(dir.path().join("cube.obj"), CUBE_OBJ).unwrap();
    let path = write_scenario(
        &inner,
        serde_json::json!({"type": "convex_mesh", "file": "../cube.obj"}),
    );
    let e = scenario::load(&path).unwrap_err().to_string();
    assert!(
        e.contains("bodies[0].shape.file") && e.contains("leaves the scenario's folder"),
        "{e}"
    );
}

#[test]
fn a_compound_of_two_spheres_rests_on_both() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_scenario(
        dir.path(),
        serde_json::json!({"type": "compound", "parts": [
            {"shape": {"type": "sphere", "radius": 0.05}, "position": [-0.1, 0.0, 0.0]},
            {"shape": {"type": "sphere", "radius": 0.05}, "position": [0.1, 0.0, 0.0]}
        ]}),
    );
    let s = scenario::load(&path).unwrap();
    let mut w = contact_fmu::cosim::World::new(&s, Some(dir.path())).unwrap();
    w.exit_initialization().unwrap();
    for _ in 0..2000 {
        w.do_step(1e-3).unwrap();
    }
    let t = w.table().clone();
    let vrs: Vec<u32> = ["rock.r[3]", "rock.q[2]", "rock.q[3]"]
        .iter()
        .map(|n| t.by_name(n).unwrap().vr)
        .collect();
    let mut out = [0.0; 3];
    w.get_reals(&vrs, &mut out).unwrap();
    assert!(
        out[0] < 0.05 && out[0] > 0.049,
        "resting on its spheres: z {}",
        out[0]
    );
}

//! The procedural asset generator (issue 6): rock fields against the Golombek-Rapp
//! law, no overlaps, resting on the surface; identical bytes across runs; the content
//! ID cache; the `contact-fmu asset` command line.

use contact_fmu::assets::rock::RockParams;
use contact_fmu::assets::rockfield::{self, FieldLayout, RocksParams};
use contact_fmu::assets::surface::{Fractal, Layer, NoiseKind, SurfaceParams, Terrain};
use contact_fmu::assets::wheel::{GrouserPattern, Grousers, Profile, WheelParams};
use contact_fmu::assets::{self, AssetRequest, MeshFormat};
use std::path::Path;

mod common;

fn ground(size: f64) -> SurfaceParams {
    SurfaceParams {
        layers: vec![
            Layer::Slope {
                height: 0.0,
                slope: 5.0,
                direction: 30.0,
            },
            Layer::Noise {
                kind: NoiseKind::Perlin,
                fractal: Fractal::Fbm,
                octaves: 5,
                frequency: 0.08,
                amplitude: 0.6,
                lacunarity: 2.0,
                persistence: 0.5,
                seed: 11,
            },
        ],
        extent: [-0.5 * size, 0.5 * size, -0.5 * size, 0.5 * size],
        resolution: 0.5,
    }
}

fn field(k: f64, seed: u64) -> RocksParams {
    RocksParams {
        surface: ground(50.0),
        k,
        d_min: 0.1,
        d_max: 2.0,
        rock: RockParams::Noise {
            dimensions: [1.0, 0.8, 0.6],
            shape_roughness: 0.3,
            surface_roughness: 0.1,
            detail: 2,
            seed: 0,
        },
        prototypes: 12,
        attempts: 100,
        density: 2600.0,
        seed,
        layout: FieldLayout::Merged,
    }
}

#[test]
fn rock_fields_follow_golombek_rapp_without_overlaps_resting_on_the_surface() {
    let here = Path::new(".");
    for (k, seed) in [(0.05, 1), (0.15, 2)] {
        let p = field(k, seed);
        let f = rockfield::generate(&p, here, &|_, _| {}).unwrap();
        let n = f.rocks.len();
        eprintln!(
            "k = {k}: q = {:.3}, {n} rocks ({:.0} expected), {} unplaced",
            rockfield::q_of_k(k),
            p.expected_count(),
            f.unplaced
        );
        // cumulative fractional area of rocks of diameter D or larger, against the
        // truncated law k (exp(-q D) - exp(-q d_max)): within 10 %
        for d in [0.1, 0.2, 0.3, 0.5, 0.7] {
            let (got, want) = (f.coverage(d), p.model_coverage(d));
            eprintln!(
                "  F({d}) = {got:.5} (model {want:.5}, {:+.2} %)",
                100.0 * (got / want - 1.0)
            );
            assert!(
                (got / want - 1.0).abs() < 0.10,
                "k {k}, D {d}: {got} vs {want}"
            );
        }
        assert!(
            f.unplaced * 100 < n,
            "too many rocks found no place: {}",
            f.unplaced
        );
        // no overlaps: plan circles (the rock's vertical-axis circumcircle) apart
        let t = Terrain::new(&p.surface, here).unwrap();
        let radius: Vec<f64> = (0..n)
            .map(|i| {
                f.rock_mesh(i)
                    .vertices
                    .iter()
                    .map(|v| v.x.hypot(v.y))
                    .fold(0.0, f64::max)
            })
            .collect();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| f.rocks[a].position[0].total_cmp(&f.rocks[b].position[0]));
        let r_max = radius.iter().fold(0.0f64, |a, &b| a.max(b));
        for (ia, &a) in order.iter().enumerate() {
            let pa = f.rocks[a].position;
            for &b in &order[ia + 1..] {
                let pb = f.rocks[b].position;
                if pb[0] - pa[0] > 2.0 * r_max {
                    break;
                }
                let d = (pa[0] - pb[0]).hypot(pa[1] - pb[1]);
                assert!(
                    d >= radius[a] + radius[b] - 1e-9,
                    "rocks {a} and {b} overlap"
                );
            }
        }
        // resting: the lowest point touches the surface, none is below it
        let merged = f.merged();
        let per_rock = merged.vertices.len() / n;
        for (i, chunk) in merged.vertices.chunks(per_rock).enumerate().step_by(7) {
            let gap = chunk
                .iter()
                .map(|v| v.z - t.height(v.x, v.y))
                .fold(f64::INFINITY, f64::min);
            assert!(
                gap.abs() < 1e-9,
                "rock {i}: lowest point {gap} m above the surface"
            );
        }
        // mass properties scale with the diameter: m = rho V d^3
        let r0 = &f.rocks[0];
        let v0 = f.prototypes[r0.prototype as usize].mass.volume;
        assert!((r0.mass - 2600.0 * v0 * r0.diameter.powi(3)).abs() < 1e-9 * r0.mass);
    }
}

fn requests(dir: &Path) -> Vec<AssetRequest> {
    std::fs::write(dir.join("map.csv"), "0,1,2\n1,2,3\n0,0,5\n").unwrap();
    let mut s = ground(8.0);
    s.layers.push(Layer::HeightMap {
        file: "map.csv".into(),
        cell: 2.0,
        scale: 0.1,
        offset: 0.0,
        origin: [-2.0, -2.0],
    });
    let mut rocks = field(0.1, 5);
    rocks.surface = ground(10.0);
    let mut per_rock = rocks.clone();
    per_rock.layout = FieldLayout::PerRock;
    vec![
        AssetRequest::Wheel(WheelParams {
            radius: 0.2,
            width: 0.15,
            profile: Profile::Convex { crown_radius: 0.3 },
            grousers: Some(Grousers {
                count: 16,
                height: 0.01,
                thickness: 0.006,
                pattern: GrouserPattern::Chevron { angle: 25.0 },
            }),
            max_edge: Some(0.01),
        }),
        AssetRequest::Surface(s),
        AssetRequest::Rock(RockParams::Hull {
            radius: 0.3,
            height: 0.2,
            points: 50,
            sigma_radial: 0.2,
            sigma_height: 0.1,
            seed: 4,
        }),
        AssetRequest::Rock(RockParams::Noise {
            dimensions: [0.5, 0.4, 0.3],
            shape_roughness: 0.3,
            surface_roughness: 0.2,
            detail: 3,
            seed: 4,
        }),
        AssetRequest::Rocks(rocks),
        AssetRequest::Rocks(per_rock),
    ]
}

#[test]
fn the_same_request_gives_the_same_bytes_and_the_cache_reuses_them() {
    let src = tempfile::tempdir().unwrap();
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let formats = [MeshFormat::Obj, MeshFormat::Ply, MeshFormat::Stl];
    for req in requests(src.path()) {
        let wa = assets::write(&req, src.path(), a.path(), &formats, &|_, _, _| {}).unwrap();
        // a second generation elsewhere, in a pool of another size
        let wb = contact_fmu::parallel::with_threads(3, || {
            assets::write(&req, src.path(), b.path(), &formats, &|_, _, _| {})
        })
        .unwrap();
        assert!(!wa.reused && !wb.reused);
        assert_eq!(wa.id, wb.id);
        assert!(wa.files[0]
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .starts_with(&format!("{}_{}", req.prefix(), wa.id)));
        assert_eq!(wa.files.len(), wb.files.len());
        for (fa, fb) in wa.files.iter().zip(&wb.files) {
            assert_eq!(fa.file_name(), fb.file_name());
            assert!(
                std::fs::read(fa).unwrap() == std::fs::read(fb).unwrap(),
                "{} differs between runs",
                fa.display()
            );
        }
        // the cache: the same request again reuses every file, untouched
        let before: Vec<_> = wa
            .files
            .iter()
            .map(|f| std::fs::metadata(f).unwrap().modified().unwrap())
            .collect();
        let again = assets::write(&req, src.path(), a.path(), &formats, &|_, _, _| {}).unwrap();
        assert!(again.reused, "{} not reused", req.prefix());
        assert_eq!(again.files, wa.files);
        let after: Vec<_> = wa
            .files
            .iter()
            .map(|f| std::fs::metadata(f).unwrap().modified().unwrap())
            .collect();
        assert_eq!(before, after);
        // a file gone: generated again
        std::fs::remove_file(wa.files.last().unwrap()).unwrap();
        assert!(
            !assets::write(&req, src.path(), a.path(), &formats, &|_, _, _| {})
                .unwrap()
                .reused
        );
    }
    // another parameter, another ID; a changed height-map file, another ID
    let reqs = requests(src.path());
    let id = reqs[1].content_id(src.path()).unwrap();
    std::fs::write(src.path().join("map.csv"), "0,1,2\n1,2,3\n0,0,6\n").unwrap();
    assert_ne!(reqs[1].content_id(src.path()).unwrap(), id);
    let AssetRequest::Wheel(mut w) = reqs[0].clone() else {
        unreachable!()
    };
    let id = AssetRequest::Wheel(w.clone())
        .content_id(src.path())
        .unwrap();
    w.radius = 0.21;
    assert_ne!(AssetRequest::Wheel(w).content_id(src.path()).unwrap(), id);
}

#[test]
fn the_command_line_writes_and_reuses_assets() {
    let exe = env!("CARGO_BIN_EXE_contact-fmu");
    let out = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let o = std::process::Command::new(exe)
            .args(args)
            .arg("-o")
            .arg(out.path())
            .output()
            .unwrap();
        (
            o.status.success(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let wheel = [
        "asset",
        "wheel",
        "--radius",
        "0.25",
        "--width",
        "0.2",
        "--grousers",
        "12",
        "--pattern",
        "slanted",
        "--angle",
        "20",
        "--max-edge",
        "0.02",
    ];
    let (ok, files, err) = run(&wheel);
    assert!(ok, "{err}");
    assert!(err.starts_with("generated"), "{err}");
    let listed: Vec<&str> = files.lines().collect();
    assert_eq!(listed.len(), 2, "{files}");
    let sidecar: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(listed[0]).unwrap()).unwrap();
    assert_eq!(sidecar["kind"], "wheel");
    assert!(sidecar["mass_properties"]["volume_m3"].as_f64().unwrap() > 0.0);
    assert_eq!(sidecar["request"]["params"]["grousers"]["count"], 12);
    let (ok, _, err) = run(&wheel);
    assert!(ok && err.starts_with("reused"), "{err}");
    let (ok, files, err) = run(&[
        "asset",
        "rocks",
        "--extent",
        "-5,5,-5,5",
        "--k",
        "0.1",
        "--amplitude",
        "0.3",
        "--format",
        "ply",
    ]);
    assert!(ok, "{err}");
    assert!(
        files.contains(".ply") && err.contains("rocks placed"),
        "{files} {err}"
    );
    let (ok, _, err) = run(&["asset", "rock", "--method", "hull", "--points", "2"]);
    assert!(!ok && err.contains("rock.points"), "{err}");
    let (ok, _, err) = run(&["asset", "surface", "--extent", "0,1,0"]);
    assert!(!ok && err.contains("--extent"), "{err}");
    // a JSON request file, height map relative to it
    let src = tempfile::tempdir().unwrap();
    std::fs::write(src.path().join("m.csv"), "0,1\n2,3\n").unwrap();
    let req = r#"{"kind": "surface", "params": {"extent": [0, 1, 0, 1], "resolution": 0.25,
        "layers": [{"type": "height_map", "file": "m.csv", "cell": 1.0}]}}"#;
    std::fs::write(src.path().join("s.json"), req).unwrap();
    let (ok, files, err) = run(&["asset", "json", src.path().join("s.json").to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(files.contains(".png"), "{files}");
    std::fs::write(
        src.path().join("bad.json"),
        r#"{"kind": "wheel", "params": {"radius": "big"}}"#,
    )
    .unwrap();
    let (ok, _, err) = run(&[
        "asset",
        "json",
        src.path().join("bad.json").to_str().unwrap(),
    ]);
    assert!(!ok && err.contains("params.radius"), "{err}");
}

fn example_world(name: &str) -> contact_fmu::cosim::World {
    let path = common::root().join("examples").join(format!("{name}.json"));
    let s = contact_fmu::scenario::load(&path).unwrap();
    let mut w = contact_fmu::cosim::World::new(&s, path.parent()).unwrap();
    w.enter_initialization();
    w.exit_initialization().unwrap();
    w
}

#[test]
fn scenarios_use_generated_shapes_and_the_fmu_carries_their_meshes() {
    use contact_fmu::scenario::Shape;
    // packaged: the mesh and its sidecar under resources/assets/, named by the content ID
    for (example, body) in [("scm_generated_wheel", 0), ("bbcc_rock_drop", 0)] {
        let (_dir, fmu) = common::package_example(example);
        let path = common::root()
            .join("examples")
            .join(format!("{example}.json"));
        let sc = contact_fmu::scenario::load(&path).unwrap();
        let Shape::Generated { asset } = &sc.bodies[body].shape else {
            panic!()
        };
        let stem = asset.stem(Path::new(".")).unwrap();
        let mut zip = zip::ZipArchive::new(std::fs::File::open(&fmu).unwrap()).unwrap();
        let mut obj = String::new();
        std::io::Read::read_to_string(
            &mut zip
                .by_name(&format!("resources/assets/{stem}.obj"))
                .unwrap(),
            &mut obj,
        )
        .unwrap();
        let mesh = asset.mesh().unwrap();
        assert_eq!(
            obj.lines().filter(|l| l.starts_with("v ")).count(),
            mesh.vertices.len()
        );
        assert!(zip
            .by_name(&format!("resources/assets/{stem}.json"))
            .is_ok());
    }
    // the rock falls, bounces, tumbles and comes to rest on the ground
    let mut w = example_world("bbcc_rock_drop");
    let pos = |w: &mut contact_fmu::cosim::World| {
        ["rock.r[1]", "rock.r[2]", "rock.r[3]"].map(|n| common::world_get(w, n))
    };
    for _ in 0..5000 {
        w.do_step(1e-3).unwrap();
    }
    let p5 = pos(&mut w);
    for _ in 0..1000 {
        w.do_step(1e-3).unwrap();
    }
    let p6 = pos(&mut w);
    let moved =
        ((p6[0] - p5[0]).powi(2) + (p6[1] - p5[1]).powi(2) + (p6[2] - p5[2]).powi(2)).sqrt();
    eprintln!(
        "rock at rest: z = {:.4} m, moved {moved:.2e} m from 5 s to 6 s",
        p6[2]
    );
    // resting on a face or an edge: its centre of mass between the smallest and the
    // largest half dimension above the ground, and still
    assert!(
        p6[2] > 0.08 && p6[2] < 0.16 && moved < 2e-3,
        "z {}, moved {moved}",
        p6[2]
    );
    // the generated wheel stands in SCM soil: it carries load through its full mesh
    let mut w = example_world("scm_generated_wheel");
    for _ in 0..50 {
        w.do_step(1e-2).unwrap();
    }
    let (fz, nodes) = (
        common::world_get(&mut w, "wheel.f[3]"),
        common::world_get(&mut w, "wheel.contact_nodes"),
    );
    eprintln!("generated wheel on SCM: Fz = {fz:.1} N on {nodes} footprint nodes");
    assert!(fz > 20.0 && nodes > 50.0, "{fz} N, {nodes} nodes");
}

#[test]
fn a_packaged_fmu_reads_its_generated_terrain_and_height_map_from_resources() {
    // the bevameter on a generated terrain: a CSV height map (0.2 m plateau under the
    // plate) plus a slope elsewhere; the map travels into resources/ with the scenario
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("maps")).unwrap();
    let row = |v: f64| vec![format!("{v}"); 5].join(",");
    let csv: String = (0..5).map(|_| row(0.2) + "\n").collect();
    std::fs::write(dir.path().join("maps/plateau.csv"), csv).unwrap();
    let src = common::root().join("examples/scm_bevameter.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(src).unwrap()).unwrap();
    v["model_identifier"] = "generated_terrain_probe".into();
    v.as_object_mut().unwrap().remove("$schema");
    v["terrain"]["surface"] = serde_json::json!({
        "type": "generated",
        "extent": [-1.0, 1.0, -1.0, 1.0],
        "resolution": 0.01,
        "layers": [{"type": "height_map", "file": "maps/plateau.csv", "cell": 0.5, "origin": [-1.0, -1.0]}]
    });
    let scenario = dir.path().join("s.json");
    std::fs::write(&scenario, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let out = tempfile::tempdir().unwrap();
    let fmu = contact_fmu::packager::package(&scenario, out.path(), &common::runtime()).unwrap();
    let mut zip = zip::ZipArchive::new(std::fs::File::open(&fmu).unwrap()).unwrap();
    assert!(zip.by_name("resources/maps/plateau.csv").is_ok());
    // through the FMI C API: no force 1 cm above the plateau, force 1 cm into it
    let import = common::load(&fmu);
    let mut inst = common::start(&import, "probe");
    let (rz, fz) = (
        common::vr(&import, "probe.r[3]"),
        common::vr(&import, "probe.f[3]"),
    );
    let mut t = 0.0;
    let mut force_at = |inst: &mut fmi::fmi2::instance::InstanceCS, z: f64| {
        fmi::fmi2::instance::Common::set_real(inst, &[rz], &[z]).unwrap();
        common::step(inst, t, 0.01);
        t += 0.01;
        common::get(inst, &[fz])[0]
    };
    assert_eq!(force_at(&mut inst, 0.21), 0.0);
    let mut f = 0.0;
    for k in 1..=20 {
        f = force_at(&mut inst, 0.2 - 0.0005 * k as f64);
    }
    assert!(f > 50.0, "the plate 1 cm into the plateau carries {f} N");
}

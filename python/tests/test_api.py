"""The Python API (issue 51): dict and path input, patches, errors with field paths,
FMI 3.0, SSP, threads with the GIL released, the console script."""
import json
import re
import subprocess
import sys
import threading
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import contact_fmu
from contact_fmu import FieldError, PackagingError, ScenarioError

#: the console script pip installed beside this interpreter
CLI = str(Path(sys.executable).parent / "contact-fmu")

DROP = {
    "name": "Drop", "model_identifier": "drop",
    "default_experiment": {"stop_time": 0.5, "step_size": 0.001},
    "terrain": {"surface": {"type": "flat"}, "material": {"E": 1e7, "nu": 0.3, "zeta": 0.6, "mu": 0.5}},
    "bodies": [{"name": "ball", "shape": {"type": "sphere", "radius": 0.1},
                "material": {"E": 1e7, "nu": 0.3, "zeta": 0.6, "mu": 0.5},
                "motion": {"type": "free", "mass": 1.0, "position": [0, 0, 0.5]}}],
    "bbcc": {"v_d": 0.01, "pairs": [["ball", "terrain"]]},
}


def entries(fmu):
    """The FMU's entries, modelDescription.xml without its generation time."""
    with zipfile.ZipFile(fmu) as z:
        out = {n: z.read(n) for n in z.namelist()}
    out["modelDescription.xml"] = re.sub(rb'generationDateAndTime="[^"]*"', b"", out["modelDescription.xml"])
    return out


def start_of(fmu, name):
    md = zipfile.ZipFile(fmu).read("modelDescription.xml").decode()
    m = re.search(r'name="%s"[^>]*>\s*<Real[^>]*start="([^"]+)"' % re.escape(name), md)
    return float(m.group(1))


def test_version_is_the_crates():
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", contact_fmu.__version__)
    out = subprocess.run([CLI, "--version"],
                         capture_output=True, text=True, check=True).stdout
    assert out.strip() == f"contact-fmu {contact_fmu.__version__}"


def test_installed_runtimes_include_the_host():
    rts = contact_fmu.runtimes()
    assert "linux64" in rts and rts["linux64"].is_file()


def test_path_and_dict_give_the_same_fmu(examples, tmp_path):
    src = examples / "terra_single_wheel.json"
    a = contact_fmu.package(src, tmp_path / "a")
    b = contact_fmu.package(json.loads(src.read_text()), tmp_path / "b")
    assert a == tmp_path / "a" / "terra_single_wheel.fmu" and a.is_file()
    assert entries(a) == entries(b)
    assert set(n.split("/")[1] for n in entries(a) if n.startswith("binaries/")) == set(contact_fmu.runtimes())


def test_patches_dict_file_and_list(examples, tmp_path):
    src = examples / "terra_single_wheel.json"
    p = tmp_path / "p.json"
    p.write_text(json.dumps({"start_values": {"terrain.height": 0.125}}))
    assert start_of(contact_fmu.package(src, tmp_path / "d", patch={"start_values": {"terrain.height": 0.25}}), "terrain.height") == 0.25
    assert start_of(contact_fmu.package(src, tmp_path / "f", patch=p), "terrain.height") == 0.125
    later = contact_fmu.package(src, tmp_path / "l", patch=[p, {"start_values": {"terrain.height": 0.5}}])
    assert start_of(later, "terrain.height") == 0.5


def test_scenario_errors_carry_every_field_path(tmp_path):
    bad = json.loads(json.dumps(DROP))
    bad["bodies"][0]["shape"]["radius"] = -0.1
    bad["bodies"][0]["motion"]["mass"] = 0.0
    with pytest.raises(ScenarioError) as e:
        contact_fmu.package(bad, tmp_path)
    paths = [f.path for f in e.value.errors]
    assert "bodies[0].shape.radius" in paths and "bodies[0].motion.mass" in paths
    assert e.value.file == "scenario (dict)"
    assert e.value.path == e.value.errors[0].path
    assert isinstance(e.value, ValueError) and isinstance(e.value.errors[0], FieldError)
    assert "bodies[0].shape.radius: must be > 0, got -0.1" in str(e.value)
    assert not list(tmp_path.iterdir())


def test_format_errors_name_the_field_and_the_file(tmp_path):
    f = tmp_path / "s.json"
    f.write_text(json.dumps({**DROP, "bodies": [{**DROP["bodies"][0], "colour": "red"}]}))
    with pytest.raises(ScenarioError) as e:
        contact_fmu.check(f)
    assert e.value.file == str(f) and e.value.path.startswith("bodies[0]")
    assert "colour" in e.value.errors[0].message
    f.write_text("{ not json")
    with pytest.raises(ScenarioError) as e:
        contact_fmu.check(f)
    assert e.value.path == ""


def test_the_same_message_as_the_command_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**DROP, "default_experiment": {"stop_time": -1.0, "step_size": 0.001}}))
    with pytest.raises(ScenarioError) as e:
        contact_fmu.check(bad)
    r = subprocess.run([CLI, "check", str(bad)], capture_output=True, text=True)
    assert r.returncode == 1
    assert f"error: {e.value}" in r.stderr


def test_bad_arguments(examples, tmp_path):
    with pytest.raises(FileNotFoundError):
        contact_fmu.package(tmp_path / "missing.json", tmp_path)
    with pytest.raises(FileNotFoundError):
        contact_fmu.package(examples / "terra_single_wheel.json", tmp_path, patch=tmp_path / "nope.json")
    with pytest.raises(TypeError):
        contact_fmu.package(42, tmp_path)
    with pytest.raises(ScenarioError) as e:
        contact_fmu.package({**DROP, "name": float("nan")}, tmp_path)
    assert "not JSON" in str(e.value)
    with pytest.raises(FileNotFoundError):
        contact_fmu.package(DROP, tmp_path, patch=["no-such-patch.json"])
    with pytest.raises(TypeError, match="patch"):
        contact_fmu.package(DROP, tmp_path, patch=3)
    with pytest.raises(ScenarioError) as e:
        contact_fmu.package(DROP, tmp_path, patch={"bodies": 3})
    with pytest.raises(PackagingError, match="platform"):
        contact_fmu.package(DROP, tmp_path, platforms=["amiga"])
    with pytest.raises(PackagingError, match="FMI version"):
        contact_fmu.package(DROP, tmp_path, fmi=4)
    with pytest.raises(PackagingError, match="layout"):
        contact_fmu.package(DROP, tmp_path, fmi=2, layout="scalars")


def test_a_patch_that_is_not_an_object_is_refused(tmp_path):
    p = tmp_path / "p.json"
    p.write_text("[1, 2]")
    with pytest.raises(ScenarioError) as e:
        contact_fmu.check(DROP, patch=p)
    assert e.value.file == str(p) and "merge patch" in str(e.value)


def test_dict_assets_resolve_against_base_dir(examples, tmp_path):
    src = json.loads((examples / "scm_soil_map.json").read_text())
    with pytest.raises(ScenarioError):
        contact_fmu.check(src, base_dir=tmp_path)
    c = contact_fmu.check(src, base_dir=examples)
    assert c.model_identifier == src["model_identifier"]


def test_check_returns_the_canonical_scenario(tmp_path):
    c = contact_fmu.check(DROP)
    assert c.model_identifier == "drop" and c["bodies"][0]["name"] == "ball"
    fmu = contact_fmu.package(DROP, tmp_path)
    md = zipfile.ZipFile(fmu).read("modelDescription.xml").decode()
    assert f'guid="{c.guid}"' in md
    assert json.loads(zipfile.ZipFile(fmu).read("resources/scenario.json")) == dict(c)


def test_model_description_and_fmi3(tmp_path):
    md2 = contact_fmu.model_description(DROP)
    assert 'fmiVersion="2.0"' in md2 and 'name="ball.r[1]"' in md2
    md3 = contact_fmu.model_description(DROP, fmi=3)
    assert 'fmiVersion="3.0"' in md3 and 'name="ball.r"' in md3
    scal = contact_fmu.model_description(DROP, fmi=3, layout="scalars")
    assert 'name="ball.r[1]"' in scal
    fmu = contact_fmu.package(DROP, tmp_path, fmi=3, layout="bodies")
    names = zipfile.ZipFile(fmu).namelist()
    assert "resources/fmi3_layout.txt" in names and any(n.startswith("binaries/x86_64-linux/") for n in names)


def test_schema():
    s = contact_fmu.schema()
    assert "bodies" in s["properties"] and s["type"] == "object"


def test_ssp(examples, tmp_path):
    r = contact_fmu.ssp([examples / "cosim_sphere_body.json", examples / "cosim_sphere_contact.json"],
                        tmp_path / "loop.ssp", params={"cosim_sphere_contact:terrain.zeta": 0.8}, osp=tmp_path / "osp")
    assert r["ssp"].is_file() and (tmp_path / "osp" / "OspSystemStructure.xml").is_file()
    assert len(r["components"]) == 2 and r["connections"]
    with zipfile.ZipFile(r["ssp"]) as z:
        assert "terrain.zeta" in z.read("SystemStructure.ssd").decode()
    with pytest.raises(ValueError):
        contact_fmu.ssp([examples / "cosim_sphere_body.json"] * 2, tmp_path / "x.ssp", params={"zeta": 1})
    with pytest.raises(PackagingError, match="at least two"):
        contact_fmu.ssp([examples / "cosim_sphere_body.json"], tmp_path / "x.ssp")


def test_fit_description_errors_name_the_field(examples, tmp_path):
    spec = json.loads((examples / "fit" / "terra_drop_fit.json").read_text())
    spec["cases"][0]["measure"]["output"] = 3
    with pytest.raises(PackagingError, match="cases"):
        contact_fmu.fit(spec, tmp_path, base_dir=examples / "fit")


def test_threads_package_in_parallel_without_the_gil(examples, tmp_path):
    src = json.loads((examples / "terra_single_wheel.json").read_text())

    def one(i):
        return contact_fmu.package(src, tmp_path / "v", patch={"model_identifier": f"v{i}",
                                                                "start_values": {"terrain.height": 0.01 * i}})

    with ThreadPoolExecutor(8) as pool:
        fmus = list(pool.map(one, range(32)))
    assert len(set(fmus)) == 32
    for i, f in enumerate(fmus):
        assert start_of(f, "terrain.height") == 0.01 * i
    # the same FMU from many threads into one folder: each writes its own temporary file
    with ThreadPoolExecutor(8) as pool:
        same = list(pool.map(lambda _: contact_fmu.package(src, tmp_path / "same"), range(16)))
    assert len(set(same)) == 1 and zipfile.ZipFile(same[0]).testzip() is None
    assert [p.name for p in (tmp_path / "same").iterdir() if p.suffix == ".tmp"] == []


def test_the_gil_is_released_while_packaging(examples, tmp_path):
    """A long packaging call in one thread; this thread keeps running meanwhile."""
    took = []

    def work():
        t0 = time.perf_counter()
        contact_fmu.package(examples / "bbcc_rock_pile.json", tmp_path)
        took.append(time.perf_counter() - t0)

    stamps = []
    t = threading.Thread(target=work)
    t.start()
    while t.is_alive():
        stamps.append(time.perf_counter())
    t.join()
    gaps = [b - a for a, b in zip(stamps, stamps[1:])]
    assert took and took[0] > 0.05, took
    # held, the GIL would stop this loop for the whole call
    assert max(gaps) < 0.5 * took[0], (max(gaps), took[0])


def test_console_script_packages(examples, tmp_path):
    r = subprocess.run([CLI, "package", str(examples / "bbcc_sphere_drop.json"), "-o", str(tmp_path)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "bbcc_sphere_drop.fmu").is_file()
    r = subprocess.run([sys.executable, "-m", "contact_fmu", "nonsense"], capture_output=True, text=True)
    assert r.returncode == 2 and "unrecognized subcommand" in r.stderr


def test_the_fmu_simulates_in_fmpy(examples, tmp_path):
    fmpy = pytest.importorskip("fmpy")
    fmu = contact_fmu.package(DROP, tmp_path)
    r = fmpy.simulate_fmu(str(fmu), stop_time=3.0, output=["ball.r[3]"])
    # the ball falls from 0.5 m and comes to rest on the ground at about its radius
    assert r["ball.r[3]"][0] == 0.5 and abs(r["ball.r[3]"][-1] - 0.1) < 0.01


def test_fit_through_the_api_is_the_command_lines(examples, tmp_path):
    spec = json.loads((examples / "fit" / "terra_drop_fit.json").read_text())
    got = contact_fmu.fit(spec, tmp_path / "api", base_dir=examples / "fit")
    r = subprocess.run([CLI, "fit", str(examples / "fit" / "terra_drop_fit.json"), "-o", str(tmp_path / "cli")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    cli = json.loads((tmp_path / "cli" / "fit.json").read_text())
    assert got["start_values"] == cli["start_values"] and got["cases"] == cli["cases"]
    patched = contact_fmu.package(examples / "fit" / "terra_drop.json", tmp_path, patch=tmp_path / "api" / "patch.json")
    for name, value in got["start_values"].items():
        assert start_of(patched, name) == value


def test_asset_and_cli(tmp_path, capfd):
    out = contact_fmu.asset("rock", tmp_path / "rock", dimensions=(0.3, 0.2, 0.15), seed=7, format=["obj", "stl"])
    files = sorted(p.suffix for p in out.iterdir())
    assert files == [".json", ".obj", ".stl"]
    sidecar = json.loads(next(out.glob("*.json")).read_text())
    assert sidecar["request"]["params"]["seed"] == 7
    # the same request again: the files are reused, not rewritten
    again = contact_fmu.asset("rock", tmp_path / "rock", dimensions=(0.3, 0.2, 0.15), seed=7, format=["obj", "stl"])
    assert sorted(p.name for p in again.iterdir()) == sorted(p.name for p in out.iterdir())
    good = tmp_path / "good.json"
    good.write_text(json.dumps(DROP))
    assert contact_fmu.cli(["check", good]) == 0
    assert "ok (drop, 1 bodies)" in capfd.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**DROP, "model_step": -1}))
    assert contact_fmu.cli(["check", str(bad)], check=False) == 1
    with pytest.raises(PackagingError, match="exit code 1"):
        contact_fmu.cli(["check", str(bad)])
    assert contact_fmu.cli(["no-such-command"], check=False) == 2
    with pytest.raises(TypeError):
        contact_fmu.cli("check a.json")
    with pytest.raises(PackagingError):
        contact_fmu.asset("rock", tmp_path / "x", no_such_flag=1)

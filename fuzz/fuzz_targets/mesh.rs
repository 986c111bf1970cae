//! The mesh readers under libFuzzer: any bytes as an OBJ, STL or PLY file (the first
//! byte picks the format), through what `check` does with a PCM mesh body's file
//! (`assets::mesh_read::mesh_from_bytes`: parse, indices, area, orientation). A panic,
//! an abort, a timeout or memory beyond -rss_limit_mb is a finding.
#![no_main]

use contact_fmu::assets::mesh_read::{mesh_from_bytes, MeshFormat};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, bytes)) = data.split_first() else {
        return;
    };
    let format = [MeshFormat::Obj, MeshFormat::Stl, MeshFormat::Ply][pick as usize % 3];
    let _ = mesh_from_bytes(format, bytes, 1.0);
});

//! The footprint of a detection window, eight nodes at a time: the mask (a node is in
//! the footprint where the body's lowest point is below the soil top), the footprint
//! nodes' window indices in row-major order, their grid columns and rows, and the
//! footprint's box.
//!
//! Each group of eight nodes is compared at once, and its footprint nodes are packed
//! with a table of where each of the 256 masks has its set bits: eight indices are
//! written whatever the mask, and the count moves by the mask's population. No branch
//! depends on the mask: the grousers' gaps made a per-node branch mispredict.
//!
//! Why: the mask pass ran one node at a time on the caller while the helper thread
//! waited for it, about 5 µs of the 5 mm rig's step of about 90 µs (perf, two threads,
//! 2026-12-07).

use super::Rect;

/// For each mask of eight nodes (bit t for node t), the places of its set bits in
/// order, then zeros.
const PLACES: [[u8; 8]; 256] = places();

/// For each mask of eight nodes, its bits as bools, node 0 first.
#[cfg(target_arch = "x86_64")]
const BOOLS: [[bool; 8]; 256] = bools();

#[cfg(target_arch = "x86_64")]
const fn bools() -> [[bool; 8]; 256] {
    let mut out = [[false; 8]; 256];
    let mut m = 0;
    while m < 256 {
        let mut t = 0;
        while t < 8 {
            out[m][t] = m & (1 << t) != 0;
            t += 1;
        }
        m += 1;
    }
    out
}

const fn places() -> [[u8; 8]; 256] {
    let mut out = [[0u8; 8]; 256];
    let mut m = 0;
    while m < 256 {
        let (mut t, mut n) = (0, 0);
        while t < 8 {
            if m & (1 << t) != 0 {
                out[m][n] = t as u8;
                n += 1;
            }
            t += 1;
        }
        m += 1;
    }
    out
}

/// The footprint's box in window columns and rows: first and last column, first and
/// last row (each inclusive).
pub(super) type WindowBox = (usize, usize, usize, usize);

/// The footprint of the window `rect`: `mask[k]` is `zmin[k] < h[k]` for the nodes
/// off the window's edge (whose neighbours are all in the window) and false on it;
/// `nodes` gets the footprint nodes' window indices in row-major order, `cells` their
/// grid (column, row). Returns the footprint's box, or `None` without a footprint.
/// `zmin`, `h` and `mask` have `rect.len()` entries.
pub(super) fn find(
    zmin: &[f64],
    h: &[f64],
    rect: &Rect,
    mask: &mut Vec<bool>,
    nodes: &mut Vec<u32>,
    cells: &mut Vec<(i32, i32)>,
) -> Option<WindowBox> {
    find_with(row_nodes, zmin, h, rect, (mask, nodes, cells))
}

/// [`find`] with `row_nodes` for each row (the tests pass each kernel).
fn find_with(
    row_nodes: fn(Row<'_>, &mut [u32], usize) -> usize,
    zmin: &[f64],
    h: &[f64],
    rect: &Rect,
    (mask, nodes, cells): (&mut Vec<bool>, &mut Vec<u32>, &mut Vec<(i32, i32)>),
) -> Option<WindowBox> {
    let len = rect.len();
    mask.clear();
    mask.resize(len, false);
    cells.clear();
    let nx = rect.nx as usize;
    // (at the field's edge the faces' box may be cut to fewer than three nodes: then
    // no node has all its neighbours, and there is no footprint)
    let cols = nx.saturating_sub(2);
    let rows = if cols == 0 {
        0
    } else {
        (rect.ny as usize).saturating_sub(2)
    };
    // room for eight indices written past the last footprint node
    nodes.resize(cols * rows + 8, 0);
    let (mut a0, mut a1, mut b0, mut b1) = (usize::MAX, 0, usize::MAX, 0);
    let mut count = 0;
    for jj in 1..=rows {
        let first = count;
        let row = jj * nx;
        let span = row + 1..=row + cols;
        let (zmin, h, mask) = (&zmin[span.clone()], &h[span.clone()], &mut mask[span]);
        let start = row + 1;
        count = row_nodes(
            Row {
                zmin,
                h,
                mask,
                start,
            },
            nodes,
            count,
        );
        if count > first {
            let j = rect.j0 + jj as i32;
            cells.extend(
                nodes[first..count]
                    .iter()
                    .map(|&k| (rect.i0 + (k as usize - row) as i32, j)),
            );
            a0 = a0.min(nodes[first] as usize - row);
            a1 = a1.max(nodes[count - 1] as usize - row);
            (b0, b1) = (b0.min(jj), jj);
        }
    }
    nodes.truncate(count);
    (count > 0).then_some((a0, a1, b0, b1))
}

/// One row of the window off its edge: its nodes' lowest points and soil tops, its
/// mask to write, and its first node's window index.
struct Row<'a> {
    zmin: &'a [f64],
    h: &'a [f64],
    mask: &'a mut [bool],
    start: usize,
}

/// One row's mask and footprint nodes: `mask[i]` is `zmin[i] < h[i]`, and the row's
/// footprint nodes `start + i` go to `nodes[count..]`, which has room for eight past
/// the last. Returns the new count.
fn row_nodes(row: Row<'_>, nodes: &mut [u32], count: usize) -> usize {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("popcnt") {
        // SAFETY: AVX2 and POPCNT are there (checked above)
        return unsafe { row_nodes_avx2(row, nodes, count) };
    }
    row_nodes_any(row, nodes, count)
}

/// [`row_nodes`] with AVX2 and POPCNT: each group's eight compares in two
/// instructions and its mask bytes from a table (the compiler had left the compares
/// one by one); the rest of the row as [`row_nodes_any`]. The same results
/// (`_CMP_LT_OQ` is false with a NaN, as `<`).
///
/// # Safety
/// The processor must have AVX2 and POPCNT.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
unsafe fn row_nodes_avx2(row: Row<'_>, nodes: &mut [u32], count: usize) -> usize {
    use std::arch::x86_64::{_mm256_cmp_pd, _mm256_loadu_pd, _mm256_movemask_pd, _CMP_LT_OQ};
    row_groups(row, nodes, count, |z, h, mask| {
        // SAFETY: `z` and `h` have eight f64 each (`row_groups`' groups)
        let lanes = |t: usize| unsafe {
            let lt = _mm256_cmp_pd::<_CMP_LT_OQ>(
                _mm256_loadu_pd(z[..8].as_ptr().add(t)),
                _mm256_loadu_pd(h[..8].as_ptr().add(t)),
            );
            _mm256_movemask_pd(lt) as usize
        };
        let bits = lanes(0) | lanes(4) << 4;
        mask.copy_from_slice(&BOOLS[bits]);
        bits
    })
}

/// [`row_nodes`] on any processor.
#[inline(always)]
fn row_nodes_any(row: Row<'_>, nodes: &mut [u32], count: usize) -> usize {
    row_groups(row, nodes, count, nodes_bits)
}

/// The row's whole groups of eight nodes with `group` (it writes their mask and
/// returns its bits), the rest with [`nodes_bits`]; the footprint nodes packed at
/// `nodes[count..]`. Returns the new count.
#[inline(always)]
fn row_groups(
    row: Row<'_>,
    nodes: &mut [u32],
    mut count: usize,
    group: impl Fn(&[f64], &[f64], &mut [bool]) -> usize,
) -> usize {
    let Row {
        zmin,
        h,
        mask,
        start,
    } = row;
    let n = mask.len();
    let (zmin, h) = (&zmin[..n], &h[..n]);
    let mut at = 0;
    while at + 8 <= n {
        let bits = group(&zmin[at..at + 8], &h[at..at + 8], &mut mask[at..at + 8]);
        count = pack(bits, (start + at) as u32, nodes, count);
        at += 8;
    }
    if at < n {
        let bits = nodes_bits(&zmin[at..], &h[at..], &mut mask[at..]);
        count = pack(bits, (start + at) as u32, nodes, count);
    }
    count
}

/// Up to eight nodes one by one: `mask[t]` is `zmin[t] < h[t]`, and bit t of the
/// result is set with it.
#[inline(always)]
fn nodes_bits(zmin: &[f64], h: &[f64], mask: &mut [bool]) -> usize {
    let mut bits = 0;
    for (t, ((m, z), h)) in mask.iter_mut().zip(zmin).zip(h).enumerate() {
        *m = z < h;
        bits |= (*m as usize) << t;
    }
    bits
}

/// Writes the nodes `base + t` of the set bits t of `bits` (< 256) at `nodes[count..]`
/// (eight entries written), and returns the count past them.
#[inline(always)]
fn pack(bits: usize, base: u32, nodes: &mut [u32], count: usize) -> usize {
    let out = &mut nodes[count..count + 8];
    for (o, &p) in out.iter_mut().zip(&PLACES[bits]) {
        *o = base + p as u32;
    }
    count + bits.count_ones() as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// The node-by-node pass it replaces: the mask, the nodes, the cells and the box.
    fn one_by_one(
        zmin: &[f64],
        h: &[f64],
        rect: &Rect,
    ) -> (Vec<bool>, Vec<u32>, Vec<(i32, i32)>, Option<WindowBox>) {
        let nx = rect.nx as usize;
        let mut mask = vec![false; rect.len()];
        let (mut nodes, mut cells) = (vec![], vec![]);
        let (mut a0, mut a1, mut b0, mut b1) = (usize::MAX, 0, usize::MAX, 0);
        for jj in 1..(rect.ny as usize).saturating_sub(1) {
            for ii in 1..nx.saturating_sub(1) {
                let k = jj * nx + ii;
                mask[k] = zmin[k] < h[k];
                if mask[k] {
                    nodes.push(k as u32);
                    cells.push((rect.i0 + ii as i32, rect.j0 + jj as i32));
                    (a0, a1, b0, b1) = (a0.min(ii), a1.max(ii), b0.min(jj), b1.max(jj));
                }
            }
        }
        let found = (!nodes.is_empty()).then_some((a0, a1, b0, b1));
        (mask, nodes, cells, found)
    }

    /// Random windows from 1 to 40 nodes wide (every remainder of eight), with
    /// footprints from none to full, NaN lowest points among them, and the vectors
    /// reused from a larger window before: the same mask, nodes, cells and box as the
    /// node-by-node pass.
    #[test]
    fn rows_eight_at_a_time_find_what_node_by_node_finds() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let (mut mask, mut nodes, mut cells) = (vec![true; 5000], vec![9; 5000], vec![(1, 1); 9]);
        for case in 0..400 {
            let rect = Rect {
                i0: rng.gen_range(-50..50),
                j0: rng.gen_range(-50..50),
                nx: rng.gen_range(1..=40),
                ny: rng.gen_range(1..=12),
            };
            let density = [0.0, 0.1, 0.5, 0.9, 1.0][case % 5];
            let h: Vec<f64> = (0..rect.len()).map(|_| rng.gen_range(-1.0..1.0)).collect();
            let zmin: Vec<f64> = h
                .iter()
                .map(|&h| match rng.gen::<f64>() {
                    x if x < 0.02 => f64::NAN,
                    x if x < density => h - 0.5,
                    _ => h + [0.0, 0.5][rng.gen_range(0..2)],
                })
                .collect();
            let want = one_by_one(&zmin, &h, &rect);
            // the portable kernel too (this processor may take the AVX2 one in `find`)
            let any = find_with(
                row_nodes_any,
                &zmin,
                &h,
                &rect,
                (&mut mask, &mut nodes, &mut cells),
            );
            assert_eq!(
                (&mask, &nodes, &cells, any),
                (&want.0, &want.1, &want.2, want.3)
            );
            let found = find(&zmin, &h, &rect, &mut mask, &mut nodes, &mut cells);
            assert_eq!(
                (&mask, &nodes, &cells, found),
                (&want.0, &want.1, &want.2, want.3)
            );
        }
    }
}

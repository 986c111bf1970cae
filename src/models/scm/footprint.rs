//! Footprint-specific computations (Krenn 2009, section 3.2): node classification,
//! area A (eq. (4)), contour length L (eq. (5)), effective width b_eff (eq. (3)) and
//! the pressure weighting gamma (eq. (6)).
//!
//! The footprint is a boolean mask over a window of the grid (row-major, `nx` nodes
//! per row); the window has at least one node of margin around the footprint.

/// Contour weight c_L of a contour node with one exposed side in a straight run
/// (its two neighbours along that side are contour nodes exposed on the same side).
pub const C_L_STRAIGHT: f64 = 1.0;
/// c_L of a contour node with one exposed side next to a step of the contour.
pub const C_L_STEP: f64 = 0.81;
/// c_L of a corner node (two adjacent exposed sides): the diagonal of a cell.
pub const C_L_CORNER: f64 = 1.42;

/// A and L of a footprint, eq. (4) and (5), in units of dA = ds^2 and ds.
///
/// Node classes (Fig. 7) come from the four direct neighbours: a *contact* node has
/// all four in the footprint, a *contour* node has at least one outside. c_A = 1 for
/// every node (each node stands for its cell, and a node belongs to the footprint
/// when its centre does, which gives the area without bias). c_L of a contour node
/// depends on its exposed sides: [`C_L_STRAIGHT`], [`C_L_STEP`], [`C_L_CORNER`];
/// two opposite exposed sides (a one-node strip) count 2, three 1 + sqrt(2), four
/// (an isolated node) 2 sqrt(pi) (the circle of area ds^2). The three free weights
/// were fitted by least squares to the true perimeters of 150 circles (radius 5 to
/// 40 ds, random centres) and 100 rotated rectangles: circles come out within 1 %
/// on average (5 % at worst for a radius of 5 ds), axis-aligned rectangles exact.
///
/// Without a branch per node (whether a node lies on the contour changes at random
/// along the footprint's edge: about 200 mispredicted branches per call for a wheel at
/// 5 mm): each node's exposed sides as a 4-bit code pick its weight from a table, and
/// the one-side test reads its neighbours whatever the code (every footprint node has
/// all eight neighbours in the window, which the mask pass leaves a node wide). An
/// inner node adds 0: the same sum, in the same order, as adding contour nodes only.
///
/// `nodes` lie in the window columns and rows of the box `(c0, c1, r0, r1)` (first and
/// last, inclusive); `codes` is a work buffer.
pub fn area_and_contour(
    mask: &[bool],
    nx: usize,
    nodes: &[u32],
    (c0, c1, r0, r1): (usize, usize, usize, usize),
    codes: &mut Vec<u8>,
) -> (f64, f64) {
    // c_A = 1 per node (a count: exact in f64)
    let a = nodes.len() as f64;
    // the weight of a node per code of exposed sides (bit 0: +x, 1: -x, 2: +y, 3:
    // -y) and, at 16 + code, with one exposed side straight (both neighbours along it
    // in the footprint with the node beyond each outside): none 0, one C_L_STEP or
    // C_L_STRAIGHT, two opposite 2, two at a corner C_L_CORNER, three 1 + sqrt(2),
    // four 2 sqrt(pi)
    let weight: [f64; 32] = std::array::from_fn(|t| {
        let code = t % 16;
        let (x, y) = (code & 3, code & 12);
        match code.count_ones() {
            0 => 0.0,
            1 if t >= 16 => C_L_STRAIGHT,
            1 => C_L_STEP,
            2 if x == 3 || y == 12 => 2.0,
            2 => C_L_CORNER,
            3 => 1.0 + std::f64::consts::SQRT_2,
            _ => 2.0 * std::f64::consts::PI.sqrt(),
        }
    });
    if nodes.is_empty() {
        return (a, 0.0);
    }
    // each node's index into `weight`, row by row over the footprint's box (whole
    // rows at once, in vector lanes), then the weights summed node by node in node
    // order (an inner node adds 0: the same sum, in the same order, as adding contour
    // nodes only). Node by node the neighbours' loads and the code took 3 % of one
    // thread's step at 5 mm.
    if codes.len() < mask.len() {
        codes.resize(mask.len(), 0);
    }
    contour_codes(mask, nx, (c0, c1), (r0, r1), codes);
    let mut l = 0.0;
    for &k in nodes {
        l += weight[codes[k as usize] as usize];
    }
    (a, l)
}

crate::wide::copies! {
    /// The index into [`area_and_contour`]'s weights of each node of columns `c0..=c1`
    /// and rows `r0..=r1` of a window `nx` nodes wide (none on its edge), into `codes`
    /// (window indices): the code of its exposed sides (bit 0: +x, 1: -x, 2: +y, 3:
    /// -y), plus 16 with one exposed side straight (the two neighbours along it in the
    /// footprint, the node beyond each outside). Codes of two or more sides take 16 or
    /// not alike (their weights are the same).
    fn contour_codes / contour_codes_v3 => contour_codes_any(
        mask: &[bool],
        nx: usize,
        cols: (usize, usize),
        rows: (usize, usize),
        codes: &mut [u8],
    ) {
        let (c0, c1) = cols;
        for j in rows.0..=rows.1 {
            let row = j * nx;
            let up = &mask[row - nx + c0 - 1..=row - nx + c1 + 1];
            let mid = &mask[row + c0 - 1..=row + c1 + 1];
            let down = &mask[row + nx + c0 - 1..=row + nx + c1 + 1];
            let out = &mut codes[row + c0..=row + c1];
            let rows3 = up.windows(3).zip(mid.windows(3)).zip(down.windows(3));
            for (o, ((u, m), d)) in out.iter_mut().zip(rows3) {
                let b = |x: bool| x as u8;
                // the 3 x 3 nodes around: u the row before (-y), d the row after (+y)
                let (xp, xm, yp, ym) = (b(m[2]), b(m[0]), b(d[1]), b(u[1]));
                let code = (xp ^ 1) | (xm ^ 1) << 1 | (yp ^ 1) << 2 | (ym ^ 1) << 3;
                // one side exposed: +x: the neighbours at -y and +y, beyond them +x
                let s_xp = yp & (b(d[2]) ^ 1) & ym & (b(u[2]) ^ 1);
                let s_xm = yp & (b(d[0]) ^ 1) & ym & (b(u[0]) ^ 1);
                let s_yp = xp & (b(d[2]) ^ 1) & xm & (b(d[0]) ^ 1);
                let s_ym = xp & (b(u[2]) ^ 1) & xm & (b(u[0]) ^ 1);
                let straight = b(code == 1) & s_xp
                    | b(code == 2) & s_xm
                    | b(code == 4) & s_yp
                    | b(code == 8) & s_ym;
                *o = code | straight << 4;
            }
        }
    }
}

/// Exact squared Euclidean distance transform of a footprint mask (Felzenszwalb and
/// Huttenlocher 2012), in O(n) for the window, in integer arithmetic (the squared
/// distances are whole numbers; they come out exact in f64). The fields are work
/// buffers (no allocation once warm).
#[derive(Default)]
pub struct Edt {
    col: Vec<u32>,
    down: Vec<u32>,
    line: Vec<i64>,
    v: Vec<usize>,
    z: Vec<(i64, i64)>,
    top: Vec<i64>,
    /// A row's squared column distances between [`FAR`] margins, and its minima
    /// ([`near_row`]).
    padded: Vec<i32>,
    least: Vec<i32>,
}

/// Rows whose largest column distance is at most this many nodes take [`near_row`]
/// (its work grows with the row's length times that distance; the lower envelope's
/// with the length alone, but with a branch per parabola that mispredicts).
const NEAR_ROW_MAX: u32 = 48;
/// A squared distance no row of [`near_row`] reaches ([`NEAR_ROW_MAX`] squared, twice,
/// stays far below it), standing for the nodes beyond the row's ends.
const FAR: i32 = 1 << 30;

/// A column distance standing for "no node outside in this column" (larger than any
/// window; counting on from it stays far below overflow).
const NO_OUTSIDE: u32 = 1 << 30;

impl Edt {
    /// Squared distance (in nodes) of every window node to the nearest node outside
    /// `mask`, into `dist2` (resized; +inf where no node is outside). The first pass
    /// of a binary mask is the plain 1D distance to the nearest outside node (two
    /// scans along each column, all columns at once row by row); only the second pass,
    /// along the rows (contiguous in memory), needs the lower envelope.
    pub fn outside_distance(&mut self, mask: &[bool], nx: usize, ny: usize, dist2: &mut Vec<f64>) {
        dist2.clear();
        dist2.resize(mask.len(), 0.0);
        let col = &mut self.col;
        col.clear();
        col.resize(mask.len(), 0);
        // down the columns, then up: the distance to the nearest outside node above
        // or below
        let d = &mut self.down;
        d.clear();
        d.resize(nx, NO_OUTSIDE);
        for j in 0..ny {
            let (row, out) = (&mask[j * nx..(j + 1) * nx], &mut col[j * nx..(j + 1) * nx]);
            for ((o, &m), dc) in out.iter_mut().zip(row).zip(d.iter_mut()) {
                *dc = if m { *dc + 1 } else { 0 };
                *o = *dc;
            }
        }
        d.iter_mut().for_each(|x| *x = NO_OUTSIDE);
        for j in (0..ny).rev() {
            let (row, out) = (&mask[j * nx..(j + 1) * nx], &mut col[j * nx..(j + 1) * nx]);
            for ((o, &m), dc) in out.iter_mut().zip(row).zip(d.iter_mut()) {
                *dc = if m { *dc + 1 } else { 0 };
                *o = (*o).min(*dc);
            }
        }
        self.v.resize(nx, 0);
        self.z.resize(nx + 1, (0, 1));
        self.top.resize(nx, 0);
        self.line.resize(nx, 0);
        // Along a row, a node of a run of footprint nodes [a, b] is nearest to one of
        // the run's own parabolas or to the outside nodes a - 1 and b + 1: any node
        // beyond those is farther along the row and no lower (its squared distance is
        // at least 0). So each run takes the envelope of its own span and the two nodes
        // around it, and nodes outside stay at 0.
        for j in 0..ny {
            let (c, out) = (&col[j * nx..(j + 1) * nx], &mut dist2[j * nx..(j + 1) * nx]);
            let far = c.iter().copied().max().unwrap_or(0);
            if far <= NEAR_ROW_MAX {
                near_row(c, far, out, &mut self.padded, &mut self.least);
                continue;
            }
            let mut a = 0;
            while a < nx {
                if c[a] == 0 {
                    a += 1;
                    continue;
                }
                let mut b = a;
                while b + 1 < nx && c[b + 1] != 0 {
                    b += 1;
                }
                let (lo, hi) = (a.saturating_sub(1), (b + 1).min(nx - 1));
                let span = &c[lo..=hi];
                for (l, &x) in self.line.iter_mut().zip(span) {
                    *l = if x >= NO_OUTSIDE / 2 {
                        i64::MAX
                    } else {
                        x as i64 * x as i64
                    };
                }
                let n = span.len();
                envelope(
                    &self.line[..n],
                    &mut out[lo..=hi],
                    &mut self.v,
                    &mut self.z,
                    &mut self.top,
                );
                a = b + 2;
            }
        }
    }
}

/// The second pass of [`Edt`] on one row whose column distances `c` are at most `far`
/// ([`NEAR_ROW_MAX`]): each node's squared distance is the least (q - p)^2 + c_p^2 over
/// the row's nodes p, and only |q - p| < c_q can be less than c_q^2 (p = q itself),
/// so the nodes within `far - 1` of each node are all it needs. The offsets one by
/// one, every node of the row at once (no branch; the compiler's vector lanes): the
/// same integers as the lower envelope, so the same squared distances into `out`.
/// `padded` and `least` are work buffers.
fn near_row(c: &[u32], far: u32, out: &mut [f64], padded: &mut Vec<i32>, least: &mut Vec<i32>) {
    // the row in whole groups of eight nodes (the nodes past its end FAR)
    let (n, r) = (c.len(), far.saturating_sub(1) as usize);
    let m = n.div_ceil(8) * 8;
    padded.clear();
    padded.resize(r, FAR);
    // c_p^2 <= NEAR_ROW_MAX^2: exact in i32
    padded.extend(c.iter().map(|&x| (x * x) as i32));
    padded.resize(m + 2 * r, FAR);
    least.clear();
    least.extend_from_slice(&padded[r..r + m]);
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 is there (checked above)
        unsafe { near_offsets_avx2(padded, least, r) };
    } else {
        near_offsets(padded, least, r);
    }
    #[cfg(not(target_arch = "x86_64"))]
    near_offsets(padded, least, r);
    for (o, &l) in out.iter_mut().zip(least.iter()) {
        *o = l as f64;
    }
}

/// The offsets 1 ..= `r` of [`near_row`]: `least` (whole groups of eight) takes the
/// lesser of itself and the squared offset plus `padded` that far to either side
/// (`padded` has `r` nodes of margin on each side of `least`'s).
#[inline(always)]
fn near_offsets(padded: &[i32], least: &mut [i32], r: usize) {
    let m = least.len();
    for o in 1..=r {
        let oo = (o * o) as i32;
        let (left, right) = (&padded[r - o..r - o + m], &padded[r + o..r + o + m]);
        let groups = least.chunks_exact_mut(8).zip(left.chunks_exact(8)).zip(right.chunks_exact(8));
        for ((l, a), b) in groups {
            for t in 0..8 {
                l[t] = l[t].min(a[t].min(b[t]) + oo);
            }
        }
    }
}

/// [`near_offsets`] compiled for AVX2 (eight lanes, a min per instruction; the same
/// integers).
///
/// # Safety
/// The processor must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn near_offsets_avx2(padded: &[i32], least: &mut [i32], r: usize) {
    near_offsets(padded, least, r)
}

/// The lower-envelope pass of [`Edt`] on one row: `f` the squared column distances
/// (`i64::MAX`: none), `out` the squared distances of both passes; `v`, `z`, `top`
/// are work buffers of at least `f.len()`, `f.len() + 1` and `f.len()` elements
/// (sized once per transform: footprint rows are short, and per-row resizing cost
/// more than the pass).
///
/// The parabolas' intersections are kept as fractions of integers and compared by
/// cross-multiplication: exact, and without the division whose latency bound the
/// pass (the values stay far inside i64 for any window that fits in memory).
fn envelope(f: &[i64], out: &mut [f64], v: &mut [usize], z: &mut [(i64, i64)], top: &mut [i64]) {
    let n = f.len();
    let Some(first) = f.iter().position(|&x| x != i64::MAX) else {
        out.iter_mut().for_each(|o| *o = f64::INFINITY);
        return;
    };
    // parabola p: (q - p)^2 + f_p, its top f_p + p^2; its intersection with q's is at
    // s = (top_q - top_p) / (2 (q - p)), kept as (numerator, denominator > 0)
    for (p, (t, &x)) in top[..n].iter_mut().zip(f).enumerate() {
        *t = x.wrapping_add((p * p) as i64);
    }
    // z[k] is where parabola v[k] starts; z[0] is -inf (never compared)
    let mut k = 0usize;
    v[0] = first;
    for q in first + 1..n {
        if f[q] == i64::MAX {
            continue;
        }
        let tq = top[q];
        loop {
            let p = v[k];
            let s = (tq - top[p], 2 * (q - p) as i64);
            // s <= z[k]: the new parabola hides v[k] from z[k] on
            if k > 0 && s.0 * z[k].1 <= z[k].0 * s.1 {
                k -= 1;
                continue;
            }
            k += 1;
            v[k] = q;
            z[k] = s;
            break;
        }
    }
    let last = k;
    let mut k = 0usize;
    for (q, o) in out.iter_mut().enumerate() {
        // z[k + 1] < q: the next parabola has taken over
        while k < last && z[k + 1].0 < q as i64 * z[k + 1].1 {
            k += 1;
        }
        let p = v[k];
        let d = q as i64 - p as i64;
        *o = (d * d + f[p]) as f64;
    }
}

/// Pressure weighting gamma_i of eq. (6) for the footprint nodes.
///
/// The paper gives only the form: gamma_i = n w_i / sum w, with w_i from the node's
/// distances to the others through a soil-dependent function, flat for frictional
/// soil, rising from the border to about 2 at the centre for cohesive soil (Fig. 8,
/// after Soehne). We take as distance function the distance d_i of the node to the
/// nearest node outside the footprint (its centrality), u_i = d_i / max d, and
///
/// ```text
///   w_i = (1 - chi) + chi u_i (2 - u_i),    chi = c / (c + p_mean tan(phi))
/// ```
///
/// chi is the share of cohesion in the Mohr-Coulomb shear strength at the footprint's
/// mean pressure: 0 for dry sand (w = 1, flat, gamma_max = 1), 1 for a purely
/// cohesive soil, where u (2 - u) = 1 - (r/a)^2 on a circle of radius a: the
/// paraboloid, whose mean is half its peak, so gamma_max = 2. Mean gamma is 1 by
/// construction. The distances come from an exact Euclidean distance transform, O(n)
/// in the window (not the O(n^2) of pairwise sums).
///
/// `dist` holds each footprint node's distance d_i (in nodes, the square root of the
/// transform), one per node in footprint order; `gamma` receives one value per node.
pub fn pressure_weights(chi: f64, dist: &[f64], gamma: &mut Vec<f64>) {
    let mut u = vec![];
    centrality(dist, &mut u);
    weights_of_centrality(chi, &u, gamma);
}

/// The centrality u_i = d_i / max d of [`pressure_weights`] (max d at least one node)
/// of each footprint node's distance `dist` into `u`: the part of the weights that
/// depends on the footprint alone, found beside the soil's loads (see
/// [`weights_of_centrality`]).
pub fn centrality(dist: &[f64], u: &mut Vec<f64>) {
    u.clear();
    // the largest distance, over eight lanes (the maximum is exact: the same for any
    // grouping; one chain of 1 000 dependent comparisons took a microsecond)
    let mut top = [0.0f64; 8];
    let mut lanes = dist.chunks_exact(8);
    for c in &mut lanes {
        for (t, &d) in top.iter_mut().zip(c) {
            *t = t.max(d);
        }
    }
    let d_max = lanes
        .remainder()
        .iter()
        .chain(&top)
        .copied()
        .fold(0.0f64, f64::max)
        .max(1.0);
    u.extend(dist.iter().map(|&d| d / d_max));
}

/// The pressure weights gamma_i of [`pressure_weights`] from the footprint nodes'
/// centralities `u` (see [`centrality`]) and the share of cohesion `chi`, into
/// `gamma`: [`Weights::at`] of each node.
pub fn weights_of_centrality(chi: f64, u: &[f64], gamma: &mut Vec<f64>) {
    gamma.clear();
    match Weights::of(chi, u) {
        Some(w) => gamma.extend((0..u.len()).map(|m| w.at(m))),
        None => gamma.resize(u.len(), 1.0),
    }
}

/// The pressure weights gamma_i of [`pressure_weights`], worked out where each node's
/// force needs its own (the node forces' helper reads the centralities it found, not
/// weights the calling thread wrote): w_i = (1 - chi) + chi u_i (2 - u_i) from the
/// centralities `u` (see [`centrality`]), times n / sum w_i (summed node by node in
/// node order).
#[derive(Debug, Clone, Copy)]
pub struct Weights<'a> {
    u: &'a [f64],
    chi: f64,
    scale: f64,
}

impl<'a> Weights<'a> {
    /// The weights of the nodes of centralities `u` with the share of cohesion `chi`;
    /// None without cohesion (`chi` not above zero: every weight is 1).
    pub fn of(chi: f64, u: &'a [f64]) -> Option<Self> {
        if !(chi > 0.0) {
            return None;
        }
        let total = u.iter().fold(0.0, |t, &u| t + Self::w(chi, u));
        let scale = u.len() as f64 / total;
        Some(Weights { u, chi, scale })
    }

    /// w of a node of centrality `u`.
    #[inline(always)]
    fn w(chi: f64, u: f64) -> f64 {
        (1.0 - chi) + chi * u * (2.0 - u)
    }

    /// gamma of node `m`.
    #[inline(always)]
    pub fn at(&self, m: usize) -> f64 {
        Self::w(self.chi, self.u[m]) * self.scale
    }

    /// The centralities, the share of cohesion and the scale, for the four-lane copy
    /// of [`Weights::at`] (`contact::four_nodes`).
    pub(crate) fn parts(&self) -> (&'a [f64], f64, f64) {
        (self.u, self.chi, self.scale)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A disc of radius r nodes centred in a window with margin.
    fn disc(r: f64) -> (Vec<bool>, usize, Vec<u32>) {
        let n = (2.0 * r) as usize + 6;
        let c = n as f64 / 2.0;
        let mut mask = vec![false; n * n];
        let mut nodes = vec![];
        for j in 0..n {
            for i in 0..n {
                let (x, y) = (i as f64 - c, j as f64 - c);
                if x * x + y * y < r * r {
                    mask[j * n + i] = true;
                    nodes.push((j * n + i) as u32);
                }
            }
        }
        (mask, n, nodes)
    }

    #[test]
    fn area_and_contour_of_circles_and_rectangles() {
        for r in [7.5, 15.0, 37.5, 75.0] {
            let (mask, nx, nodes) = disc(r);
            let (a, l) = area_and_contour(&mask, nx, &nodes, box_of(&nodes, nx), &mut vec![]);
            let (a0, l0) = (std::f64::consts::PI * r * r, 2.0 * std::f64::consts::PI * r);
            assert!((a / a0 - 1.0).abs() < 0.03, "r {r}: A {a} vs {a0}");
            assert!((l / l0 - 1.0).abs() < 0.05, "r {r}: L {l} vs {l0}");
            // b_eff = 2A/L (eq. (3)) is the radius for a circle
            assert!((2.0 * a / l / r - 1.0).abs() < 0.05);
        }
        // a 20 x 40 rectangle: A = 800, L = 120 (b_eff = 13.3: the slim-rectangle
        // limit b_eff -> width is reached for long ones)
        let nx = 50;
        let mut mask = vec![false; nx * 30];
        let mut nodes = vec![];
        for j in 5..25 {
            for i in 5..45 {
                mask[j * nx + i] = true;
                nodes.push((j * nx + i) as u32);
            }
        }
        let (a, l) = area_and_contour(&mask, nx, &nodes, box_of(&nodes, nx), &mut vec![]);
        assert_eq!(a, 800.0);
        assert!((l - 120.0).abs() < 3.0, "{l}");
    }

    /// The window columns and rows of the box of `nodes` (first and last).
    fn box_of(nodes: &[u32], nx: usize) -> (usize, usize, usize, usize) {
        nodes
            .iter()
            .fold((usize::MAX, 0, usize::MAX, 0), |(c0, c1, r0, r1), &k| {
                let (i, j) = (k as usize % nx, k as usize / nx);
                (c0.min(i), c1.max(i), r0.min(j), r1.max(j))
            })
    }

    /// [`area_and_contour`] as first written, a branch per node (the reference).
    fn area_and_contour_by_branch(mask: &[bool], nx: usize, nodes: &[u32]) -> (f64, f64) {
        let at = |k: usize| mask[k];
        // c_A = 1 per node (a count: exact in f64)
        let a = nodes.len() as f64;
        let mut l = 0.0;
        for &k in nodes {
            let k = k as usize;
            // exposed sides: +x, -x, +y, -y; an inner node (most of them) adds nothing
            let ex = [!at(k + 1), !at(k - 1), !at(k + nx), !at(k - nx)];
            if !(ex[0] | ex[1] | ex[2] | ex[3]) {
                continue;
            }
            let e = ex.iter().filter(|&&x| x).count();
            l += match e {
                1 => {
                    // the two neighbours along the exposed side, and the nodes beyond them
                    let (n1, n2, out): (usize, usize, isize) = if ex[0] || ex[1] {
                        (k + nx, k - nx, if ex[0] { 1 } else { -1 })
                    } else {
                        (
                            k + 1,
                            k - 1,
                            if ex[2] { nx as isize } else { -(nx as isize) },
                        )
                    };
                    let straight = |n: usize| at(n) && !at((n as isize + out) as usize);
                    if straight(n1) && straight(n2) {
                        C_L_STRAIGHT
                    } else {
                        C_L_STEP
                    }
                }
                2 if (ex[0] && ex[1]) || (ex[2] && ex[3]) => 2.0,
                2 => C_L_CORNER,
                3 => 1.0 + std::f64::consts::SQRT_2,
                _ => 2.0 * std::f64::consts::PI.sqrt(),
            };
        }
        (a, l)
    }

    /// The table-driven A and L give the bits of the branching form on random
    /// footprints (specks, strips, gaps: every code of exposed sides) and on discs.
    #[test]
    fn area_and_contour_without_branches_is_the_branching_form() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(23);
        let mut seen = [false; 16];
        // (one work buffer throughout: what other windows left in it stays)
        let mut codes = vec![];
        for round in 0..400 {
            let (nx, ny) = (rng.gen_range(3..30), rng.gen_range(3..30));
            let fill = rng.gen_range(0.2..0.95);
            let mut mask = vec![false; nx * ny];
            let mut nodes = vec![];
            // a node wide free border, as the mask pass leaves
            for j in 1..ny - 1 {
                for i in 1..nx - 1 {
                    if rng.gen_bool(fill) {
                        mask[j * nx + i] = true;
                        nodes.push((j * nx + i) as u32);
                    }
                }
            }
            for &k in &nodes {
                let k = k as usize;
                let code = !mask[k + 1] as usize
                    | (!mask[k - 1] as usize) << 1
                    | (!mask[k + nx] as usize) << 2
                    | (!mask[k - nx] as usize) << 3;
                seen[code] = true;
            }
            let (a, l) = area_and_contour(&mask, nx, &nodes, box_of(&nodes, nx), &mut codes);
            let (a0, l0) = area_and_contour_by_branch(&mask, nx, &nodes);
            assert_eq!((a.to_bits(), l.to_bits()), (a0.to_bits(), l0.to_bits()), "round {round}");
        }
        assert!(seen.iter().all(|&s| s), "{seen:?}");
        for r in [3.3, 7.5, 15.0] {
            let (mask, nx, nodes) = disc(r);
            let (a, l) = area_and_contour(&mask, nx, &nodes, box_of(&nodes, nx), &mut vec![]);
            let (a0, l0) = area_and_contour_by_branch(&mask, nx, &nodes);
            assert_eq!((a.to_bits(), l.to_bits()), (a0.to_bits(), l0.to_bits()), "r {r}");
        }
    }

    /// Brute force: the squared distance of each node to the nearest node outside.
    fn brute(mask: &[bool], nx: usize) -> Vec<f64> {
        (0..mask.len())
            .map(|k| {
                let (i, j) = ((k % nx) as f64, (k / nx) as f64);
                let mut best = f64::INFINITY;
                for (q, &m) in mask.iter().enumerate() {
                    if !m {
                        let (a, b) = ((q % nx) as f64, (q / nx) as f64);
                        best = best.min((a - i).powi(2) + (b - j).powi(2));
                    }
                }
                best
            })
            .collect()
    }

    #[test]
    fn distance_transform_is_exact() {
        let (mask, n, _) = disc(9.0);
        let mut f = vec![];
        Edt::default().outside_distance(&mask, n, n, &mut f);
        assert_eq!(f, brute(&mask, n));
    }

    #[test]
    fn distance_transform_is_exact_on_random_masks() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let mut edt = Edt::default();
        // one workspace for windows of several sizes (its buffers are sized per call)
        for (nx, ny) in [(37, 29), (12, 13), (64, 3), (5, 40)] {
            for fill in [0.3, 0.7, 0.95, 1.0] {
                let mask: Vec<bool> = (0..nx * ny).map(|_| rng.gen::<f64>() < fill).collect();
                let mut f = vec![];
                edt.outside_distance(&mask, nx, ny, &mut f);
                assert_eq!(f, brute(&mask, nx), "{nx} x {ny}, fill {fill}");
            }
        }
        // rows beside the near pass's bound (NEAR_ROW_MAX): a solid block a node
        // narrower than twice the bound and as wide (column distances up to it) has
        // its middle rows taken by the near pass, a block two nodes higher has them
        // by the lower envelope
        for ny in [2 * NEAR_ROW_MAX as usize + 1, 2 * NEAR_ROW_MAX as usize + 3] {
            let nx = 2 * NEAR_ROW_MAX as usize + 5;
            let mask: Vec<bool> = (0..nx * ny)
                .map(|k| {
                    let (i, j) = (k % nx, k / nx);
                    (1..ny - 1).contains(&j) && (1..nx - 1).contains(&i) && rng.gen::<f64>() < 0.999
                })
                .collect();
            let mut f = vec![];
            edt.outside_distance(&mask, nx, ny, &mut f);
            assert_eq!(f, brute(&mask, nx), "{nx} x {ny}");
        }
    }

    #[test]
    fn the_near_pass_is_the_same_with_and_without_avx2() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        for _ in 0..200 {
            let (n, r) = (8 * rng.gen_range(1..6), rng.gen_range(0..NEAR_ROW_MAX as usize));
            let padded: Vec<i32> = (0..n + 2 * r).map(|_| rng.gen_range(0..2500)).collect();
            let mut portable = padded[r..r + n].to_vec();
            near_offsets(&padded, &mut portable, r);
            // the brute force: every offset of each node
            for (q, &l) in portable.iter().enumerate() {
                let want = (0..=2 * r).map(|p| padded[q + p] + (p as i32 - r as i32).pow(2)).min();
                assert_eq!(Some(l), want);
            }
            #[cfg(target_arch = "x86_64")]
            if std::is_x86_feature_detected!("avx2") {
                let mut wide = padded[r..r + n].to_vec();
                // SAFETY: AVX2 is there (checked above)
                unsafe { near_offsets_avx2(&padded, &mut wide, r) };
                assert_eq!(wide, portable);
            }
        }
    }

    #[test]
    fn gamma_is_flat_for_sand_and_peaks_near_two_for_clay() {
        let (mask, n, nodes) = disc(30.0);
        let mut f = vec![];
        Edt::default().outside_distance(&mask, n, n, &mut f);
        let d: Vec<f64> = nodes.iter().map(|&k| f[k as usize].sqrt()).collect();
        let mut g = vec![];
        pressure_weights(0.0, &d, &mut g);
        assert!(g.iter().all(|&x| x == 1.0));
        pressure_weights(1.0, &d, &mut g);
        let mean = g.iter().sum::<f64>() / g.len() as f64;
        let max = g.iter().cloned().fold(0.0, f64::max);
        assert!((mean - 1.0).abs() < 1e-12);
        assert!((max - 2.0).abs() < 0.1, "gamma_max {max}");
        // border nodes carry the least
        let min = g.iter().cloned().fold(f64::INFINITY, f64::min);
        assert!(min < 0.2, "{min}");
    }
}

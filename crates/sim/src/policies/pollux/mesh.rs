//! The Delaunay tetrahedra over which Pollux's simulator interpolates a placement's step time on
//! more than four nodes (`docs/pollux-semantics.md` §3.2.3, §12.3).
//!
//! The profile points lie on a near-grid where the triangulation is not unique, and the
//! original's Qhull broke the ties by insertion order; another triangulation changes step times
//! by up to 10x. So the tetrahedra are data: `triangulation.txt.gz`, exported once per
//! application by `scripts/pollux_triangulation.py` (scipy 1.5.2, the artifact's pinned version)
//! as the point coordinates in the interpolator's order and the vertex indices of each
//! tetrahedron. The values at the points come from the profile itself
//! ([`super::profile::Application`]), which checks that its points are these.

use flate2::read::GzDecoder;
use std::collections::BTreeMap;
use std::io::Read;

/// Scipy's tolerance for a point being inside a tetrahedron (`100 * DBL_EPSILON`).
const INSIDE_EPS: f64 = 100.0 * f64::EPSILON;

/// One application's tetrahedra with their barycentric transforms.
#[derive(Debug, Clone)]
pub struct Mesh {
    /// Point coordinates (nodes, replicas, per-GPU batch), in the interpolator's order.
    pub points: Vec<[f64; 3]>,
    simplices: Vec<[usize; 4]>,
    /// Per tetrahedron: the inverse transform (row-major 3x3) and its fourth vertex.
    transforms: Vec<([[f64; 3]; 3], [f64; 3])>,
}

impl Mesh {
    fn new(points: Vec<[f64; 3]>, simplices: Vec<[usize; 4]>) -> Self {
        let transforms = simplices.iter().map(|s| barycentric_transform(&points, s)).collect();
        Self { points, simplices, transforms }
    }

    /// The tetrahedron containing `x` and the weights of its four vertices, the way scipy's
    /// `LinearNDInterpolator` computes them; `None` outside the hull.
    pub fn locate(&self, x: [f64; 3]) -> Option<([usize; 4], [f64; 4])> {
        self.transforms.iter().zip(&self.simplices).find_map(|((inverse, origin), simplex)| {
            let weights = weights(inverse, origin, x);
            weights.iter().all(|&w| (-INSIDE_EPS..=1.0 + INSIDE_EPS).contains(&w)).then_some((*simplex, weights))
        })
    }

    /// Piecewise-linear interpolation of per-point `values` at `x`, summed in scipy's order.
    pub fn interpolate<const N: usize>(&self, values: &[[f64; N]], x: [f64; 3]) -> Option<[f64; N]> {
        let (simplex, weights) = self.locate(x)?;
        let mut out = [0.0; N];
        for (&vertex, &w) in simplex.iter().zip(&weights) {
            for (o, v) in out.iter_mut().zip(&values[vertex]) {
                *o += v * w;
            }
        }
        Some(out)
    }
}

fn weights(inverse: &[[f64; 3]; 3], origin: &[f64; 3], x: [f64; 3]) -> [f64; 4] {
    let mut c = [0.0; 4];
    for j in 0..3 {
        for k in 0..3 {
            c[j] += inverse[j][k] * (x[k] - origin[k]);
        }
    }
    c[3] = 1.0 - c[0] - c[1] - c[2];
    c
}

/// Scipy's barycentric transform of a tetrahedron: the inverse of the matrix whose columns are
/// the first three vertices minus the fourth, computed as LAPACK's `dgetrf`/`dgetrs` do (partial
/// pivoting, scaling by the pivot's reciprocal), so that weights agree to the last bits.
fn barycentric_transform(points: &[[f64; 3]], simplex: &[usize; 4]) -> ([[f64; 3]; 3], [f64; 3]) {
    let origin = points[simplex[3]];
    // LAPACK sees the transpose of scipy's C-ordered matrix: row r = vertex r minus the origin.
    let mut a = [[0.0; 3]; 3];
    for (r, row) in a.iter_mut().enumerate() {
        for (c, v) in row.iter_mut().enumerate() {
            *v = points[simplex[r]][c] - origin[c];
        }
    }
    let mut pivots = [0usize; 3];
    for j in 0..3 {
        let p = (j..3).fold(j, |best, i| if a[i][j].abs() > a[best][j].abs() { i } else { best });
        pivots[j] = p;
        a.swap(j, p);
        if a[j][j] != 0.0 {
            let reciprocal = 1.0 / a[j][j];
            for row in a.iter_mut().skip(j + 1) {
                row[j] *= reciprocal;
            }
        }
        for i in j + 1..3 {
            for k in j + 1..3 {
                a[i][k] -= a[i][j] * a[j][k];
            }
        }
    }
    // Solve A X = I column by column: row swaps, unit lower, then upper triangle.
    let mut x = [[0.0; 3]; 3];
    for (col, out) in x.iter_mut().enumerate() {
        let mut b = [0.0; 3];
        b[col] = 1.0;
        for (j, &p) in pivots.iter().enumerate() {
            b.swap(j, p);
        }
        for j in 0..3 {
            for i in j + 1..3 {
                b[i] -= b[j] * a[i][j];
            }
        }
        for k in (0..3).rev() {
            b[k] /= a[k][k];
            for i in 0..k {
                b[i] -= b[k] * a[i][k];
            }
        }
        *out = b;
    }
    // Scipy leaves ill-conditioned (flat) tetrahedra out: their transform is NaN, so no point
    // is inside them. The reciprocal condition number in the 1-norm, as LAPACK estimates it.
    let norm = |m: &[[f64; 3]; 3]| (0..3).map(|c| (0..3).map(|r| m[r][c].abs()).sum::<f64>()).fold(0.0, f64::max);
    let mut original = [[0.0; 3]; 3];
    for (r, row) in original.iter_mut().enumerate() {
        for (c, v) in row.iter_mut().enumerate() {
            *v = points[simplex[r]][c] - origin[c];
        }
    }
    let rcond = 1.0 / (norm(&original) * norm(&x));
    if rcond.is_nan() || rcond < INSIDE_EPS {
        return ([[f64::NAN; 3]; 3], origin);
    }
    // `x[col]` is column `col` of A's inverse; scipy's transform row j is column j of it.
    (x, origin)
}

/// Every application's mesh, decoded from the embedded export.
pub fn embedded() -> Result<BTreeMap<String, Mesh>, String> {
    static DATA: &[u8] = include_bytes!("triangulation.txt.gz");
    let mut text = String::new();
    GzDecoder::new(DATA)
        .read_to_string(&mut text)
        .map_err(|e| format!("the embedded Pollux triangulation cannot be decompressed: {e}"))?;
    parse(&text)
}

fn parse(text: &str) -> Result<BTreeMap<String, Mesh>, String> {
    let mut meshes = BTreeMap::new();
    let mut lines = text.lines().enumerate();
    let bad = |line: usize, what: &str| format!("Pollux triangulation line {}: {what}", line + 1);
    while let Some((at, header)) = lines.next() {
        let fields: Vec<&str> = header.split_whitespace().collect();
        let [_, name, points, simplices] = fields[..] else {
            return Err(bad(at, "expected `app NAME POINTS SIMPLICES`"));
        };
        let count = |s: &str| s.parse::<usize>().map_err(|_| bad(at, "expected a count"));
        let (points, simplices) = (count(points)?, count(simplices)?);
        let mut read_row = |what: &str| -> Result<Vec<i64>, String> {
            let (at, line) = lines.next().ok_or_else(|| bad(at, &format!("{name}: file ends inside its {what}")))?;
            line.split_whitespace()
                .map(|v| v.parse::<i64>().map_err(|_| bad(at, &format!("bad {what} `{v}`"))))
                .collect()
        };
        let mut coords = Vec::with_capacity(points);
        for _ in 0..points {
            let row = read_row("points")?;
            let [n, r, b] = row[..] else { return Err(bad(at, "a point has three coordinates")) };
            coords.push([n as f64, r as f64, b as f64]);
        }
        let mut tetrahedra = Vec::with_capacity(simplices);
        for _ in 0..simplices {
            let row = read_row("tetrahedra")?;
            let vertices: Vec<usize> = row.iter().map(|&v| usize::try_from(v).unwrap_or(usize::MAX)).collect();
            let [i, j, k, l] = vertices[..] else { return Err(bad(at, "a tetrahedron has four vertices")) };
            if vertices.iter().any(|&v| v >= points) {
                return Err(bad(at, "a vertex index is out of range"));
            }
            tetrahedra.push([i, j, k, l]);
        }
        meshes.insert(name.to_string(), Mesh::new(coords, tetrahedra));
    }
    Ok(meshes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_export_has_every_application_with_the_original_sizes() {
        let meshes = embedded().unwrap();
        let sizes: Vec<(&str, usize, usize)> =
            meshes.iter().map(|(name, m)| (name.as_str(), m.points.len(), m.simplices.len())).collect();
        assert_eq!(
            sizes,
            [
                ("bert", 350, 1661),
                ("cifar10", 700, 3914),
                ("deepspeech2", 434, 2308),
                ("imagenet", 560, 2925),
                ("ncf", 1004, 5713),
                ("yolov3", 278, 1317)
            ]
        );
    }

    #[test]
    fn weights_reproduce_a_vertex_and_a_centroid() {
        let points = vec![[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 4.0, 0.0], [0.0, 0.0, 8.0]];
        let mesh = Mesh::new(points, vec![[1, 2, 3, 0]]);
        let values = [[0.0], [1.0], [2.0], [4.0]];
        assert_eq!(mesh.interpolate(&values, [2.0, 0.0, 0.0]), Some([1.0]));
        let centroid = mesh.interpolate(&values, [0.5, 1.0, 2.0]).unwrap()[0];
        assert!((centroid - 7.0 / 4.0).abs() < 1e-15, "{centroid}");
        assert_eq!(mesh.interpolate(&values, [3.0, 0.0, 0.0]), None);
    }
}

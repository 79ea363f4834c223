/// Eigen-decomposition of a symmetric 3×3 matrix by cyclic Jacobi rotations:
/// `m = V · diag(values) · Vᵀ`, eigenvectors in the columns of `vectors`.
public func symmetricEigen(_ m: Matrix3) -> (values: Vector3, vectors: Matrix3) {
    var a = [[m.a11, m.a12, m.a13], [m.a21, m.a22, m.a23], [m.a31, m.a32, m.a33]]
    var v = [[1.0, 0, 0], [0, 1.0, 0], [0, 0, 1.0]]
    for _ in 0..<50 {
        let off = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2]
        if off < 1e-30 { break }
        for (p, q) in [(0, 1), (0, 2), (1, 2)] where a[p][q] != 0 {
            let theta = (a[q][q] - a[p][p]) / (2 * a[p][q])
            let t = (theta >= 0 ? 1.0 : -1.0) / (abs(theta) + (theta * theta + 1).squareRoot())
            let c = 1 / (t * t + 1).squareRoot(), s = t * c
            for k in 0..<3 {
                let akp = a[k][p], akq = a[k][q]
                a[k][p] = c * akp - s * akq
                a[k][q] = s * akp + c * akq
            }
            for k in 0..<3 {
                let apk = a[p][k], aqk = a[q][k]
                a[p][k] = c * apk - s * aqk
                a[q][k] = s * apk + c * aqk
            }
            for k in 0..<3 {
                let vkp = v[k][p], vkq = v[k][q]
                v[k][p] = c * vkp - s * vkq
                v[k][q] = s * vkp + c * vkq
            }
        }
    }
    return (Vector3(a[0][0], a[1][1], a[2][2]),
            Matrix3(v[0][0], v[0][1], v[0][2], v[1][0], v[1][1], v[1][2], v[2][0], v[2][1], v[2][2]))
}

/// Solves the linear system `a · x = b` (n×n, row-major) by Gaussian elimination with partial
/// pivoting; `nil` when singular.
func solveLinearSystem(_ a: [[Double]], _ b: [Double]) -> [Double]? {
    let n = b.count
    var m = a
    var r = b
    for col in 0..<n {
        var pivot = col
        for row in (col + 1)..<n where abs(m[row][col]) > abs(m[pivot][col]) { pivot = row }
        guard abs(m[pivot][col]) > 1e-300 else { return nil }
        m.swapAt(col, pivot)
        r.swapAt(col, pivot)
        for row in (col + 1)..<n {
            let f = m[row][col] / m[col][col]
            if f == 0 { continue }
            for k in col..<n { m[row][k] -= f * m[col][k] }
            r[row] -= f * r[col]
        }
    }
    var x = [Double](repeating: 0, count: n)
    for row in stride(from: n - 1, through: 0, by: -1) {
        var s = r[row]
        for k in (row + 1)..<n { s -= m[row][k] * x[k] }
        x[row] = s / m[row][row]
    }
    return x
}

/// A multinomial logistic-regression (softmax) classifier over standardised `ActivityFeatures`.
///
/// `p(c) ∝ exp(w_c · z + b_c)` with `z_i = (x_i − mean_i) / scale_i`. The parameters come from
/// `scripts/fit-activity-model` (see `ActivityModelParameters.swift`). Evaluation allocates nothing.
public struct ActivityModel: Sendable, Hashable {
    /// The classes the model scores, in weight-row order (a class may repeat: sub-classes).
    public var classes: [ActivityClass]
    public var mean: [Double]
    public var scale: [Double]
    /// One row per class: `ActivityFeatures.modelFeatureCount` weights then the bias.
    public var weights: [[Double]]

    public init(classes: [ActivityClass], mean: [Double], scale: [Double], weights: [[Double]]) {
        self.classes = classes
        self.mean = mean
        self.scale = scale
        self.weights = weights
    }

    /// The largest |mean| or |weight| and the scale range a usable model has. With these bounds
    /// and finite features every logit is finite (13 terms of at most 1e9 × (|x| + 1e9) / 1e-9),
    /// so `probabilities` is always a distribution; a fitted model is many orders inside them.
    public static let parameterLimit = 1e9
    public static let scaleRange = 1e-9...1e9

    /// Names what is inconsistent, or `nil` when usable.
    public func validationError() -> String? {
        let f = ActivityFeatures.modelFeatureCount
        if classes.isEmpty { return "model has no classes" }
        if mean.count != f || scale.count != f { return "model mean/scale need \(f) values each (found \(mean.count)/\(scale.count))" }
        if scale.contains(where: { !Self.scaleRange.contains($0) }) { return "model scale values must be within 1e-9 … 1e9 (> 0)" }
        if mean.contains(where: { !(abs($0) <= Self.parameterLimit) }) { return "model mean values must be finite, within ±1e9" }
        if weights.contains(where: { $0.contains { !(abs($0) <= Self.parameterLimit) } }) {
            return "model weights must be finite, within ±1e9"
        }
        if weights.count != classes.count { return "model has \(classes.count) classes but \(weights.count) weight rows" }
        if let bad = weights.firstIndex(where: { $0.count != f + 1 }) {
            return "model weight row \(bad) has \(weights[bad].count) values; expected \(f + 1) (features then bias)"
        }
        return nil
    }

    /// Class probabilities for `x` (classes the model does not score stay 0). A class may own
    /// several rows (sub-classes, e.g. a still and a hand-held `stationary`): their probabilities
    /// add up. Index loops only, so that not even an unoptimised build allocates.
    public func probabilities(_ x: ActivityFeatures) -> ClassProbabilities {
        var top = -Double.infinity
        for r in 0..<classes.count { top = Swift.max(top, logit(r, x)) }
        var out = ClassProbabilities()
        var sum = 0.0
        for r in 0..<classes.count {
            let e = (logit(r, x) - top).exp
            out[classes[r]] += e
            sum += e
        }
        out.scale(by: 1 / sum)
        return out
    }

    @inline(__always) private func logit(_ r: Int, _ x: ActivityFeatures) -> Double {
        let f = ActivityFeatures.modelFeatureCount
        var s = weights[r][f]
        for i in 0..<f { s += weights[r][i] * ((x[i] - mean[i]) / scale[i]) }
        return s
    }
}

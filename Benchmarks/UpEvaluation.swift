import Foundation
import SplatCore
import SplatFormats
import SplatRender
import TestSupport

/// `up-eval [--shared PATH] [--no-roundtrip] [--evidence] [--stress-only] [--stress-count N] [--runs N]`: the up estimator's
/// accuracy on the orientation test set (`UpEvaluationCorpus`: each corpus scene of ≥ 1,000 splats
/// in all 24 axis-aligned orientations and 24 random rotations, in memory and through PLY and SPZ
/// files with no declared frame), each evidence source's own record, and the estimator's cost on
/// every scene and on the 3.4-million-splat stress scene (built in memory as `make-stress-scene`
/// builds it).
enum UpEvaluation {
    static let randomRotations = 24

    static func run(_ arguments: [String]) -> Int32 {
        var shared: String?
        var roundTrip = true
        var stressCount = 3_400_000
        var runs = 7
        var showEvidence = false
        var stressOnly = false
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--shared": shared = rest.popFirst()
            case "--no-roundtrip": roundTrip = false
            case "--evidence": showEvidence = true
            case "--stress-only": stressOnly = true
            case "--stress-count":
                guard let v = rest.popFirst().flatMap(Int.init), v >= 0 else { return usage("--stress-count needs a number") }
                stressCount = v
            case "--runs":
                guard let v = rest.popFirst().flatMap(Int.init), v > 0 else { return usage("--runs needs a positive number") }
                runs = v
            default: return usage("unexpected argument \(argument)")
            }
        }
        return tool.run {
            let paths = try BenchmarkPaths(shared: shared)
            try evaluate(paths, roundTrip: roundTrip, stressCount: stressCount, runs: runs, showEvidence: showEvidence, stressOnly: stressOnly)
            return 0
        }
    }

    private static let tool = ToolCommand("up-eval", synopsis: "[--shared PATH] [--no-roundtrip] [--evidence] [--stress-only] [--stress-count N] [--runs N]")

    private static func usage(_ problem: String) -> Int32 { tool.usage(problem) }

    static func load(_ entry: UpEvaluationCorpus.Entry, paths: BenchmarkPaths) throws -> SplatScene {
        let path = try paths.corpusFile(entry.file)
        if entry.isGLBPayload {
            let payload = try UpEvaluationCorpus.spzPayload(glbPath: path)
            let input = payload.withUnsafeBytes { InputBytes(copying: $0, name: entry.file) }
            return try SplatFile.decode(input, format: .spz).scene
        }
        return try SplatFile.decode(path: path).scene
    }

    private static func evaluate(_ paths: BenchmarkPaths, roundTrip: Bool, stressCount: Int, runs: Int, showEvidence: Bool, stressOnly: Bool) throws {
        var axisTotal = UpEvaluationTally(), randomTotal = UpEvaluationTally()
        var plyTotal = UpEvaluationTally(), spzTotal = UpEvaluationTally()
        var sourceRecords: [String: (voted: Int, right: Int)] = [:]
        var costs: [(String, Int, Sample)] = []
        print("Up estimator on the orientation test set (threshold \(UpEstimator.confidenceThreshold)); per scene: right / wrong / imprecise / not confident")
        print("| scene | splats | truth | upright today | unrotated: axis, confidence | changes today's render | axis-aligned (24) | random (24) | PLY files (48) | SPZ files (48) |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for (index, entry) in UpEvaluationCorpus.entries.enumerated() where !stressOnly {
            let full = try load(entry, paths: paths)
            let scene = UpEvaluationCorpus.thinned(full)
            let unrotated = UpEstimator.estimate(scene)
            costs.append((entry.name, full.count, Stopwatch(warmUps: 1, runs: runs).measure { UpEstimator.estimate(full) }))
            let changes = entry.uprightToday && unrotated.isConfident && unrotated.axis != entry.truth
            record(unrotated, truth: entry.truth.vector, into: &sourceRecords)

            var axis = UpEvaluationTally(), random = UpEvaluationTally(), ply = UpEvaluationTally(), spz = UpEvaluationTally()
            let rotations = UpEvaluationCorpus.axisRotations.map { ($0, true) }
                + UpEvaluationCorpus.randomRotations(count: randomRotations, seed: UInt64(index + 1)).map { ($0, false) }
            for (rotation, aligned) in rotations {
                let rotated = UpEvaluationCorpus.copy(scene)
                rotation.apply(to: rotated)
                let truth = rotation.apply(point: entry.truth.vector)
                func add(_ estimate: UpEstimate, to tally: inout UpEvaluationTally) {
                    if aligned {
                        tally.addAxisCase(estimated: estimate.axis, confident: estimate.isConfident, truth: SignedAxis.nearest(to: truth)!)
                    } else {
                        tally.addRotatedCase(estimated: estimate.vector, confident: estimate.isConfident, truth: truth)
                    }
                }
                if aligned { add(UpEstimator.estimate(rotated), to: &axis) } else { add(UpEstimator.estimate(rotated), to: &random) }
                guard roundTrip else { continue }
                // Files as an older converter writes them: the rotated values, no frame declared.
                let plyBytes = PLYEncoder.encode(rotated)
                let fromPLY = try plyBytes.withUnsafeBytes { try SplatFile.decode(InputBytes(copying: $0, name: "case.ply")).scene }
                add(UpEstimator.estimate(fromPLY), to: &ply)
                let spzBytes = try SPZEncoder.encode(rotated, options: .init(version: 4))
                let fromSPZ = try spzBytes.withUnsafeBytes { try SplatFile.decode(InputBytes(copying: $0, name: "case.spz")).scene }
                add(UpEstimator.estimate(fromSPZ), to: &spz)
            }
            axisTotal = axisTotal + axis; randomTotal = randomTotal + random; plyTotal = plyTotal + ply; spzTotal = spzTotal + spz
            func cell(_ t: UpEvaluationTally) -> String { t.cases == 0 ? "–" : "\(t.right) / \(t.wrong) / \(t.imprecise) / \(t.unconfident)" }
            print("| \(entry.name) | \(full.count) | \(entry.truth.rawValue) | \(entry.uprightToday ? "yes" : "no") | \(unrotated.axis.rawValue), \(String(format: "%.2f", unrotated.confidence)) | \(changes ? "YES" : "no") | \(cell(axis)) | \(cell(random)) | \(cell(ply)) | \(cell(spz)) |")
        }
        if showEvidence && !stressOnly {
            print("")
            for entry in UpEvaluationCorpus.entries {
                let estimate = UpEstimator.estimate(UpEvaluationCorpus.thinned(try load(entry, paths: paths)))
                print("\(entry.name): \(estimate.axis.rawValue) confidence \(String(format: "%.3f", estimate.confidence))")
                printEvidence(estimate, truth: entry.truth.vector)
            }
        }
        print("")
        print("overall, axis-aligned in memory: \(axisTotal.summary)")
        print("overall, random rotations:       \(randomTotal.summary); within \(Int(UpEvaluationTally.rightDegrees))° regardless of confidence \(String(format: "%.1f %%", 100 * randomTotal.fraction(randomTotal.withinRightDegrees)))")
        if roundTrip {
            print("overall, through PLY files:      \(plyTotal.summary)")
            print("overall, through SPZ files:      \(spzTotal.summary)")
        }
        print("")
        print("Each source on its own, unrotated scenes (axis votes: the line within \(Int(UpEstimator.clusterDegrees))° of the true vertical; sign votes: scenes whose chosen line is the true one, vote pointing up):")
        for key in sourceRecords.keys.sorted() {
            let r = sourceRecords[key]!
            print("  \(key): voted on \(r.voted) of \(UpEvaluationCorpus.entries.count) scenes, right on \(r.right)")
        }
        print("")
        print("Cost (median of \(runs) runs after a warm-up; \(Parallel.processorCount) cores):")
        for (name, count, sample) in costs {
            print("  " + name.padding(toLength: 16, withPad: " ", startingAt: 0)
                  + String(format: " %9d splats  %7.2f ms (cpu %.2f ms)", count, sample.median, sample.cpuMedian ?? .nan))
        }
        guard stressCount > 0 else { return }
        let geometry = try SplatFile.decode(path: paths.corpusFile(StressSceneGenerator.geometrySource)).scene
        let colours = try SplatFile.decode(path: paths.corpusFile(StressSceneGenerator.shSource)).scene
        let stress = StressSceneGenerator.build(count: stressCount, seed: 1, geometry: geometry, colours: colours)
        let sample = Stopwatch(warmUps: 1, runs: runs).measure { UpEstimator.estimate(stress) }
        let estimate = UpEstimator.estimate(stress)
        print("  stress          " + String(format: " %9d splats  %7.2f ms (cpu %.2f ms); estimate %@, confidence %.2f (the tiled flower beds are Z-up)",
                                           stressCount, sample.median, sample.cpuMedian ?? .nan, estimate.axis.rawValue, estimate.confidence))
        if showEvidence { printEvidence(estimate, truth: SignedAxis.plusZ.vector) }
    }

    private static func printEvidence(_ estimate: UpEstimate, truth: SIMD3<Double>) {
        for e in estimate.evidence {
            let angle = UpEvaluationTally.degrees(e.vector, truth)
            print(String(format: "    %@ %@ weight %.3f, %5.1f° from truth%@", e.source.rawValue, e.role.rawValue, e.weight, angle,
                         e.agrees ? ", agrees" : ""))
        }
    }

    /// Counts each source's vote on an unrotated scene against `truth`.
    private static func record(_ estimate: UpEstimate, truth: SIMD3<Double>, into records: inout [String: (voted: Int, right: Int)]) {
        let cone = cos(UpEstimator.clusterDegrees * .pi / 180)
        let lineIsRight = abs((estimate.vector * truth).sum()) >= cone
        for e in estimate.evidence where e.weight > 0 {
            let key = "\(e.source.rawValue) (\(e.role.rawValue))"
            var r = records[key] ?? (0, 0)
            switch e.role {
            case .axis:
                r.voted += 1
                if abs((e.vector * truth).sum()) >= cone { r.right += 1 }
            case .sign:
                guard lineIsRight else { continue }
                r.voted += 1
                if (e.vector * truth).sum() > 0 { r.right += 1 }
            }
            records[key] = r
        }
    }
}

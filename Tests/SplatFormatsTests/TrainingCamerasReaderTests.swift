import Foundation
import SplatCore
import SplatFormats
import Testing
import TestSupport

/// The INRIA `cameras.json` reader: values as written, and every malformed file refused whole.
@Suite struct TrainingCamerasReaderTests {
    /// Two cameras as INRIA's `camera_to_JSON` writes them: the second turned 90° about y.
    static let valid = """
    [{"id": 0, "img_name": "00001", "width": 1959, "height": 1090, "position": [-3.0089, -0.1102, -3.7189],
      "rotation": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "fy": 1164.6601287484507, "fx": 1159.5880733038064},
     {"id": 7, "img_name": "00008", "width": 1959, "height": 1090, "position": [1, 2, 3],
      "rotation": [[0, 0, 1], [0, 1, 0], [-1, 0, 0]], "fy": 1164.66, "fx": 1159.59}]
    """

    func parse(_ text: String) throws -> [TrainingCamera] {
        try Array(text.utf8).withUnsafeBytes { try TrainingCamerasReader.parse($0, file: "cameras.json") }
    }

    func failure(_ text: String) -> SplatError? {
        Array(text.utf8).withUnsafeBytes { raw -> SplatError? in
            do { _ = try TrainingCamerasReader.parse(raw, file: "cameras.json"); return nil } catch { return error as? SplatError }
        }
    }

    @Test func readsTheInriaLayout() throws {
        let cameras = try parse(Self.valid)
        #expect(cameras.count == 2)
        #expect(cameras[0].id == 0 && cameras[0].name == "00001" && cameras[0].width == 1959 && cameras[0].height == 1090)
        #expect(cameras[0].position == SIMD3(-3.0089, -0.1102, -3.7189))
        #expect(cameras[0].fx == 1159.5880733038064 && cameras[0].fy == 1164.6601287484507)
        #expect(cameras[1].id == 7)
        // Rows as written, so the columns are the camera's axes: forward (third) is world +x.
        #expect(cameras[1].forward == SIMD3(1, 0, 0))
        #expect(cameras[1].right == SIMD3(0, 0, -1))
        #expect(cameras[1].up == SIMD3(0, -1, 0))
    }

    @Test func readsFromDisk() throws {
        let dir = try Fixtures.temporaryDirectory("cameras")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("cameras.json").path
        try Data(Self.valid.utf8).write(to: URL(fileURLWithPath: path))
        #expect(try TrainingCamerasReader.read(path: path).count == 2)
        #expect(throws: SplatError.self) { try TrainingCamerasReader.read(path: dir.appendingPathComponent("none.json").path) }
    }

    @Test func refusesNaNAndInfinity() {
        // Python's json module writes these bare tokens, which are not JSON.
        let nan = Self.valid.replacingOccurrences(of: "\"fy\": 1164.66,", with: "\"fy\": NaN,")
        #expect(failure(nan)?.kind == .badMeta)
        let infinite = Self.valid.replacingOccurrences(of: "[1, 2, 3]", with: "[1, Infinity, 3]")
        #expect(failure(infinite)?.kind == .badMeta)
        let huge = Self.valid.replacingOccurrences(of: "[1, 2, 3]", with: "[1, 1e999, 3]")
        #expect(failure(huge)?.kind == .badMeta)
    }

    @Test func namesTheMissingOrMistypedField() {
        let missing = Self.valid.replacingOccurrences(of: "\"fx\": 1159.59", with: "\"fz\": 1159.59")
        let error = failure(missing)
        #expect(error?.kind == .badMeta)
        #expect(error?.field == "[1].fx")
        let text = Self.valid.replacingOccurrences(of: "\"width\": 1959, \"height\": 1090, \"position\": [1",
                                                   with: "\"width\": \"wide\", \"height\": 1090, \"position\": [1")
        #expect(failure(text)?.field?.hasPrefix("[1].width") == true)
        #expect(failure("{\"cameras\": []}")?.kind == .badMeta)
        #expect(failure("[1, 2]")?.kind == .badMeta)
        #expect(failure("not json")?.kind == .badMeta)
    }

    @Test func refusesImpossibleCameras() {
        let sheared = Self.valid.replacingOccurrences(of: "[[0, 0, 1], [0, 1, 0], [-1, 0, 0]]", with: "[[0, 0, 1], [0, 1, 0], [-1, 0.1, 0]]")
        #expect(failure(sheared)?.field == "[1].rotation")
        let mirrored = Self.valid.replacingOccurrences(of: "[[0, 0, 1], [0, 1, 0], [-1, 0, 0]]", with: "[[0, 0, 1], [0, 1, 0], [1, 0, 0]]")
        #expect(failure(mirrored)?.message.contains("mirrors") == true)
        let short = Self.valid.replacingOccurrences(of: "[[0, 0, 1], [0, 1, 0], [-1, 0, 0]]", with: "[[0, 0, 1], [0, 1, 0]]")
        #expect(failure(short)?.field == "[1].rotation")
        #expect(failure(Self.valid.replacingOccurrences(of: "\"fx\": 1159.59", with: "\"fx\": 0"))?.field == "[1].fx")
        #expect(failure(Self.valid.replacingOccurrences(of: "\"fx\": 1159.59", with: "\"fx\": -3"))?.field == "[1].fx")
        #expect(failure(Self.valid.replacingOccurrences(of: "\"height\": 1090, \"position\": [1", with: "\"height\": 0, \"position\": [1"))?.field == "[1].width")
        #expect(failure(Self.valid.replacingOccurrences(of: "[1, 2, 3]", with: "[1, 2]"))?.field == "[1].position")
    }

    @Test func boundsTheInputBeforeParsing() {
        #expect(failure("[]")?.kind == .empty)
        #expect(failure("")?.kind == .empty)
        let oversized = [UInt8](repeating: 0x20, count: TrainingCamerasReader.maximumBytes + 1)
        let error = oversized.withUnsafeBytes { raw -> SplatError? in
            do { _ = try TrainingCamerasReader.parse(raw); return nil } catch { return error as? SplatError }
        }
        #expect(error?.kind == .tooLarge)
    }
}

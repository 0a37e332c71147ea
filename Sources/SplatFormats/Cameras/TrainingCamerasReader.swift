import Foundation
import SplatCore

/// Reads the INRIA 3DGS `cameras.json` that trainers write beside their PLY: a JSON array of
/// `{id, img_name, width, height, position, rotation, fx, fy}`, `rotation` being the 3×3
/// camera-to-world matrix as rows, OpenCV axes, in the scene's stored frame. Values are checked,
/// not repaired: a NaN (which Python's `json` writes as a bare `NaN`), an infinite or non-positive
/// focal length or size, or a rotation that is not orthonormal with determinant +1 fails the
/// whole file with `bad_meta`, naming the camera and field.
public enum TrainingCamerasReader {
    /// Larger files are refused before parsing (`too_large`): 16 bytes of JSON per camera field
    /// leave room for ~200,000 cameras, far beyond any capture.
    public static let maximumBytes = 64 << 20
    /// More cameras than this are refused (`implausible_count`).
    public static let maximumCameras = 100_000
    /// How far the rotation may be from orthonormal (per entry of RᵀR − I) — six decimals survive
    /// every writer seen; a looser matrix is a scaled or sheared one, not a rotation.
    public static let rotationTolerance = 1e-3

    /// Reads and validates `path`.
    public static func read(path: String) throws(SplatError) -> [TrainingCamera] {
        let input = try InputBytes(path: path)
        return try parse(input.bytes, file: path)
    }

    /// Validates cameras already in memory.
    public static func parse(_ bytes: UnsafeRawBufferPointer, file: String? = nil) throws(SplatError) -> [TrainingCamera] {
        guard bytes.count <= maximumBytes else {
            throw SplatError(.tooLarge, "cameras file is \(bytes.count) bytes, more than the \(maximumBytes)-byte limit", file: file)
        }
        guard bytes.count > 0 else { throw SplatError(.empty, "cameras file is empty", file: file) }
        let entries: [Entry]
        do {
            entries = try JSONDecoder().decode([Entry].self, from: Data(bytes))
        } catch let DecodingError.dataCorrupted(context) {
            throw SplatError(.badMeta, "cameras file is not valid JSON (a NaN or infinity is not JSON): \(context.debugDescription)",
                             file: file, field: fieldName(context.codingPath))
        } catch let DecodingError.keyNotFound(key, context) {
            throw SplatError(.badMeta, "a camera has no \(key.stringValue)", file: file,
                             field: fieldName(context.codingPath + [key]))
        } catch let DecodingError.typeMismatch(_, context) {
            throw SplatError(.badMeta, "wrong type: \(context.debugDescription)", file: file, field: fieldName(context.codingPath))
        } catch let DecodingError.valueNotFound(_, context) {
            throw SplatError(.badMeta, "missing value: \(context.debugDescription)", file: file, field: fieldName(context.codingPath))
        } catch {
            throw SplatError(.badMeta, "cameras file is not a list of cameras: \(error)", file: file)
        }
        guard !entries.isEmpty else { throw SplatError(.empty, "cameras file lists no cameras", file: file) }
        guard entries.count <= maximumCameras else {
            throw SplatError(.implausibleCount, "\(entries.count) cameras, more than \(maximumCameras)", file: file)
        }
        var cameras: [TrainingCamera] = []
        cameras.reserveCapacity(entries.count)
        for (index, entry) in entries.enumerated() {
            cameras.append(try entry.validated(index: index, file: file))
        }
        return cameras
    }

    private static func fieldName(_ path: [CodingKey]) -> String? {
        guard !path.isEmpty else { return nil }
        return path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }

    /// One element of the array, as written by INRIA's `camera_to_JSON`.
    private struct Entry: Decodable {
        var id: Int
        var imageName: String
        var width: Int
        var height: Int
        var position: [Double]
        var rotation: [[Double]]
        var fx: Double
        var fy: Double

        enum CodingKeys: String, CodingKey {
            case id, imageName = "img_name", width, height, position, rotation, fx, fy
        }

        func validated(index: Int, file: String?) throws(SplatError) -> TrainingCamera {
            func fail(_ field: String, _ message: String) -> SplatError {
                SplatError(.badMeta, "camera \(index) (id \(id)): \(message)", file: file, field: "[\(index)].\(field)")
            }
            guard width > 0, height > 0 else { throw fail("width", "image size \(width)×\(height) is not positive") }
            guard fx.isFinite, fy.isFinite, fx > 0, fy > 0 else { throw fail("fx", "focal lengths \(fx), \(fy) are not positive and finite") }
            guard position.count == 3, position.allSatisfy(\.isFinite) else {
                throw fail("position", "position must be three finite numbers")
            }
            guard rotation.count == 3, rotation.allSatisfy({ $0.count == 3 && $0.allSatisfy(\.isFinite) }) else {
                throw fail("rotation", "rotation must be a 3×3 matrix of finite numbers")
            }
            let rows = rotation.map { SIMD3($0[0], $0[1], $0[2]) }
            for i in 0..<3 {
                for j in 0..<3 {
                    let dot = SIMD3(rows[0][i], rows[1][i], rows[2][i]) * SIMD3(rows[0][j], rows[1][j], rows[2][j])
                    guard abs(dot.sum() - (i == j ? 1 : 0)) <= TrainingCamerasReader.rotationTolerance else {
                        throw fail("rotation", "rotation is not orthonormal")
                    }
                }
            }
            let c = SIMD3(rows[1].y * rows[2].z - rows[1].z * rows[2].y,
                          rows[1].z * rows[2].x - rows[1].x * rows[2].z,
                          rows[1].x * rows[2].y - rows[1].y * rows[2].x)
            guard (rows[0] * c).sum() > 0 else { throw fail("rotation", "rotation mirrors (determinant −1)") }
            return TrainingCamera(id: id, name: imageName, width: width, height: height,
                                  position: SIMD3(position[0], position[1], position[2]), rotation: rows, fx: fx, fy: fy)
        }
    }
}

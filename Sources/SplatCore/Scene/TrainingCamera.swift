import Foundation

/// One camera the trainer fitted the scene to, as the INRIA 3DGS `cameras.json` lists it: a pinhole
/// with OpenCV axes (x right, y down, z forward), principal point at the image centre, in the
/// scene's stored frame. Converting the scene to another frame must convert its cameras with it
/// (`converted(by:)`).
public struct TrainingCamera: Sendable, Equatable, Codable {
    /// The `id` the file gives (not necessarily the index in the list).
    public var id: Int
    /// `img_name`: the training image's name.
    public var name: String
    /// Size of the training image in pixels.
    public var width: Int
    public var height: Int
    /// Camera centre.
    public var position: SIMD3<Double>
    /// Rows of the camera-to-world rotation; its columns are the camera's right, down and forward
    /// directions in the world.
    public var rotation: [SIMD3<Double>]
    /// Focal lengths in pixels of the training image.
    public var fx: Double
    public var fy: Double

    public init(id: Int, name: String, width: Int, height: Int, position: SIMD3<Double>,
                rotation: [SIMD3<Double>], fx: Double, fy: Double) {
        precondition(rotation.count == 3, "a rotation has three rows")
        self.id = id
        self.name = name
        self.width = width
        self.height = height
        self.position = position
        self.rotation = rotation
        self.fx = fx
        self.fy = fy
    }

    /// Column `c` of the camera-to-world rotation.
    private func column(_ c: Int) -> SIMD3<Double> { SIMD3(rotation[0][c], rotation[1][c], rotation[2][c]) }

    /// The camera's +x (image right) in the world.
    public var right: SIMD3<Double> { column(0) }
    /// The camera's +y (image down) in the world.
    public var down: SIMD3<Double> { column(1) }
    /// The camera's +z (viewing direction) in the world.
    public var forward: SIMD3<Double> { column(2) }
    /// The world direction at the top of the training image: −down. Trainers' cameras are held
    /// upright far more often than not, which is why their mean says where up is.
    public var up: SIMD3<Double> { -down }

    /// Vertical field of view of the training image in degrees: 2·atan(H / (2·fy)).
    public var verticalFOVDegrees: Double { 2 * atan(Double(height) / (2 * fy)) * 180 / .pi }

    /// The same camera in the frame `conversion` leads to: position M·p, rotation M·R (every axis
    /// of the camera maps like a direction of the scene). A mirroring conversion leaves a
    /// left-handed camera basis; a look-at camera built from it sees the mirror image.
    public func converted(by conversion: FrameConversion) -> TrainingCamera {
        transformed(by: conversion.rows.map { SIMD3<Double>(Double($0.x), Double($0.y), Double($0.z)) })
    }

    /// The same camera after `rotation` is applied to the scene.
    public func rotated(by rotation: SceneRotation) -> TrainingCamera {
        transformed(by: rotation.rows)
    }

    private func transformed(by m: [SIMD3<Double>]) -> TrainingCamera {
        func apply(_ v: SIMD3<Double>) -> SIMD3<Double> { SIMD3((m[0] * v).sum(), (m[1] * v).sum(), (m[2] * v).sum()) }
        var copy = self
        copy.position = apply(position)
        let columns = (0..<3).map { apply(column($0)) }
        copy.rotation = (0..<3).map { r in SIMD3(columns[0][r], columns[1][r], columns[2][r]) }
        return copy
    }
}

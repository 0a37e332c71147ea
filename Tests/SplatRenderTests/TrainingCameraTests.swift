import Foundation
import SplatCore
import SplatFormats
import SplatImage
@testable import SplatRender
import Testing
import TestSupport

/// Training cameras as views: a cameras.json made from a known look-at camera renders the same
/// picture as that camera, frame conversions carry cameras with their scene, and `training:auto`
/// picks the typical vantage point.
@Suite struct TrainingCameraTests {
    static func fruit() throws -> SplatScene {
        try SplatFile.decode(path: Fixtures.sampleScenes.appendingPathComponent("fruit.ply").path).scene
    }

    /// The fruit sign seen from the front (stored RDF values, so −Y is up).
    static let lookAt = Camera(position: SIMD3(0.9, 0.05, -1.55), target: SIMD3(0.74, 0.12, -2.13),
                               up: SIMD3(0, -1, 0), fovYDegrees: 38)

    /// The INRIA `cameras.json` entry for `camera` with a training image of `width`×`height`: the
    /// camera-to-world rotation's columns are the look-at's right, down and forward.
    static func json(for camera: Camera, width: Int, height: Int, id: Int = 0) throws -> String {
        let rows = try #require(camera.rotationRows)
        let c2w = (0..<3).map { i in [rows.right[i], rows.down[i], rows.forward[i]] }
        let f = camera.focalLength(height: height)
        let entry: [String: Any] = ["id": id, "img_name": String(format: "%05d", id), "width": width, "height": height,
                                    "position": [camera.position.x, camera.position.y, camera.position.z],
                                    "rotation": c2w, "fx": f, "fy": f]
        return String(decoding: try JSONSerialization.data(withJSONObject: [entry]), as: UTF8.self)
    }

    static func render(_ scene: SplatScene, _ camera: Camera, width: Int = 160, height: Int = 120) throws -> ImageBuffer {
        try Renderer(scene: scene, threads: 2).render(camera: camera, settings: RenderSettings(width: width, height: height,
                                                                                                 background: SIMD3(0, 0, 0))).image
    }

    @Test func aCamerasJSONFromAKnownCameraRendersTheSamePicture() throws {
        let text = try Self.json(for: Self.lookAt, width: 1280, height: 960)
        let cameras = try Array(text.utf8).withUnsafeBytes { try TrainingCamerasReader.parse($0) }
        let camera = try #require(Camera(training: cameras[0]))
        #expect(abs(camera.fovYDegrees - Self.lookAt.fovYDegrees) < 1e-9)
        let scene = try Self.fruit()
        // Intrinsics scaled from 1280×960 to 160×120: the same picture, eight times smaller.
        let expected = try Self.render(scene, Self.lookAt), got = try Self.render(scene, camera)
        let report = ImageComparison.compare(expected, got)
        #expect(report.psnr >= 60, "\(report)")
        #expect(ImageComparison.compare(expected, try Self.render(scene, Self.lookAt, width: 160, height: 100)).sameShape == false)
    }

    @Test func scaledIntrinsicsKeepBothFieldsOfView() throws {
        let training = TrainingCamera(id: 1, name: "a", width: 640, height: 480, position: .zero,
                                      rotation: [SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1)], fx: 500, fy: 500)
        let camera = try #require(Camera(training: training))
        let trainingFovX = 2 * atan(320.0 / 500), fovY = 2 * atan(240.0 / 500)
        #expect(abs(camera.fovYDegrees * .pi / 180 - fovY) < 1e-12)
        // At any size with the training aspect ratio the horizontal field of view follows.
        let f = camera.focalLength(height: 300)
        #expect(abs(2 * atan(200 / f) - trainingFovX) < 1e-12)
        // OpenCV axes: looking along +z with +y down in the image, so world −y is at the top.
        let rows = try #require(camera.rotationRows)
        #expect(rows.forward == SIMD3(0, 0, 1) && rows.down == SIMD3(0, 1, 0) && rows.right == SIMD3(1, 0, 0))
        var degenerate = training
        degenerate.rotation = [.zero, .zero, .zero]
        #expect(Camera(training: degenerate) == nil)
    }

    /// Converting the scene and its cameras together changes nothing in the picture: a frame
    /// conversion (RDF → RUB, what the job does before rendering) and an arbitrary rotation.
    @Test func camerasConvertWithTheirScene() throws {
        let text = try Self.json(for: Self.lookAt, width: 640, height: 480)
        let stored = try Array(text.utf8).withUnsafeBytes { try TrainingCamerasReader.parse($0) }[0]
        let scene = try Self.fruit()
        let reference = try Self.render(scene, try #require(Camera(training: stored)))

        let conversion = FrameConversion(from: .rdf, to: .rub)
        let converted = UpEvaluationCorpus.copy(scene)
        conversion.apply(to: converted)
        let convertedCamera = stored.converted(by: conversion)
        #expect(convertedCamera.up.y > 0.99, "the camera, upright in the stored RDF frame, is upright (+Y) in the render frame")
        let report = ImageComparison.compare(reference, try Self.render(converted, try #require(Camera(training: convertedCamera))))
        #expect(report.psnr >= 60, "\(report)")

        let rotation = SceneRotation(axis: SIMD3(0.4, -1, 0.3), angle: 2.2)
        let rotated = UpEvaluationCorpus.copy(scene)
        rotation.apply(to: rotated)
        let rotatedReport = ImageComparison.compare(reference, try Self.render(rotated, try #require(Camera(training: stored.rotated(by: rotation)))))
        #expect(rotatedReport.psnr >= 50, "\(rotatedReport)")
    }

    @Test func automaticChoiceIsTheTypicalVantagePoint() {
        func camera(at angle: Double) -> TrainingCamera {
            TrainingCamera(id: Int(angle), name: "", width: 64, height: 48, position: SIMD3(3 * cos(angle), 1, 3 * sin(angle)),
                           rotation: [SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1)], fx: 50, fy: 50)
        }
        // A walk along an arc from 0 to 100°: the middle of it, not its ends.
        let arc = stride(from: 0.0, through: 100, by: 10).map { camera(at: $0 * .pi / 180) }
        #expect(TrainingCameraSelection.automatic(arc, center: .zero) == 5)
        // Evenly all round: no mean direction, the first camera.
        let ring = stride(from: 0.0, to: 360, by: 90).map { camera(at: $0 * .pi / 180) }
        var flat = ring
        for i in flat.indices { flat[i].position.y = 0 }
        #expect(TrainingCameraSelection.automatic(flat, center: .zero) == 0)
        #expect(TrainingCameraSelection.automatic([], center: .zero) == nil)
        // Directions are taken from the given centre: moved off to +z, the arc's +z end is typical.
        #expect(TrainingCameraSelection.automatic(arc, center: SIMD3(0, 1, 2.5)) != 5)
    }

    @Test func cameraUpsFeedTheEstimatorInTheStoredFrame() throws {
        let text = try Self.json(for: Self.lookAt, width: 640, height: 480)
        let cameras = try Array(text.utf8).withUnsafeBytes { try TrainingCamerasReader.parse($0) }
        let scene = try Self.fruit()
        let hints = UpHints(scene: scene, cameras: cameras)
        #expect(hints.cameraUps.count == 1)
        // The sign has no up of its own (see the accuracy test); one upright camera settles it.
        let estimate = UpEstimator.estimate(scene, hints: hints)
        #expect(estimate.axis == .minusY && estimate.isConfident)
        #expect(estimate.evidence.contains { $0.source == .trainingCameras && $0.role == .axis && $0.agrees })
    }
}

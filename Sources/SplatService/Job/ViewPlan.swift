import Foundation
import SplatCore
import SplatImage
import SplatRender

/// A view to render and what its image is for.
struct PlannedView {
    enum Role {
        case image
        case frame(Int)
        case tile(Int)
    }
    var camera: Camera
    var roles: [Role]
}

/// A camera's exact bits, so views that coincide are rendered once.
struct CameraKey: Hashable {
    let bits: [UInt64]

    init(_ c: Camera) {
        bits = [c.position.x, c.position.y, c.position.z, c.target.x, c.target.y, c.target.z,
                c.up.x, c.up.y, c.up.z, c.fovYDegrees, c.near].map(\.bitPattern)
    }
}

extension JobExecution {
    /// The views to render, framed with `extent` (`.allSplats` on the blank-frame guard's retry).
    func planViews(scene: SplatScene, decision: FrameDecision,
                   extent: AutoFramer.Extent = .robust) throws(JobFailure) -> [PlannedView] {
        let options = job.view
        if let up = options.camera.up, !(up.x.isFinite && up.y.isFinite && up.z.isFinite) || up == .zero {
            throw JobFailure(error: SplatError(.invalidArgument, "camera up \(up) has no direction", field: "camera-up"), stage: .render)
        }
        let cameraGiven = options.camera.position != nil && options.camera.target != nil
        // One distance for every view: the orbit's elevation and a sheet's rows are all fitted.
        let sheetRows = job.needsOrbit ? job.sheet?.plan.elevationsDegrees ?? [] : []
        let framing: Framing? = job.needsOrbit || (job.image != nil && !cameraGiven)
            ? report.time(.framing) {
                options.camera.framing(for: scene, width: options.settings.width, height: options.settings.height,
                                       elevationDegrees: job.needsOrbit ? job.orbit.elevationDegrees : options.camera.elevationDegrees,
                                       alsoElevationsDegrees: sheetRows, extent: extent)
            }
            : nil

        var stillCamera: Camera?
        if job.image != nil {
            var resolved = options.camera.resolve(with: framing)
            if let training = options.camera.trainingView {
                // The training camera replaces the automatic view; the framing only gives the
                // scene centre `training:auto` measures directions from.
                let camera = try step(.render) { () throws(SplatError) in
                    try training.camera(from: job.load.cameras, decision: decision, center: framing?.center ?? .zero)
                }
                resolved = CameraRequest.Resolved(camera: camera, positionSource: "training", targetSource: "training",
                                                  upSource: "training")
            }
            report.camera = resolved
            stillCamera = resolved.camera
        }

        var orbit: Turntable?
        if job.needsOrbit, let framing {
            var hints = job.orbit.useCameraHints ? scene.cameraHints : nil
            if hints != nil, !decision.keepsCameraHints {
                report.note(["the file's safe-orbit hints were not applied: they describe the stored \(decision.sourceFrame.name) axes, and the scene was converted to \(decision.renderFrame.name)"])
                hints = nil
            }
            let planned = try step(.render) { () throws(SplatError) in
                try Turntable(framing: framing, frames: job.orbit.frames, elevationDegrees: job.orbit.elevationDegrees,
                              startAzimuthDegrees: job.orbit.startAzimuthDegrees, fovYDegrees: options.camera.zoomedFovYDegrees,
                              hints: hints)
            }
            report.orbit = planned
            report.note(planned.notes)
            if report.camera == nil {
                report.camera = CameraRequest.Resolved(camera: planned.camera(frame: 0), positionSource: "orbit",
                                                       targetSource: "orbit",
                                                       upSource: options.camera.up == nil ? "auto" : "option")
            }
            orbit = planned
        }

        if let sheet = job.sheet, let orbit {
            try step(.render) { () throws(SplatError) in
                try sheet.plan.validate()
                _ = try ContactSheet.layout(count: sheet.plan.cellCount(on: orbit),
                                            tileWidth: options.settings.width, tileHeight: options.settings.height,
                                            columns: sheet.plan.gridColumns, downscale: sheet.plan.downscale,
                                            gap: sheet.plan.gutter)
            }
            report.sheet = .object([("path", .string(sheet.path))] + sheet.plan.json(on: orbit))
        }
        if job.animation != nil, let orbit {
            // Every frame is held until the encoder takes them all.
            guard let pixels = CheckedSize.mul(options.settings.width, options.settings.height),
                  let total = CheckedSize.mul(pixels, orbit.frames), total <= ImageLimits.maxPixels else {
                throw JobFailure(error: SplatError(.tooLarge, "an animation of \(orbit.frames) frames of \(options.settings.width)×\(options.settings.height) exceeds \(ImageLimits.maxPixels) pixels held in memory; use fewer frames or a smaller resolution", field: "frames"),
                                 stage: .render)
            }
        }

        var views: [PlannedView] = []
        var byCamera: [CameraKey: Int] = [:]
        func add(_ camera: Camera, _ role: PlannedView.Role) {
            let key = CameraKey(camera)
            if let i = byCamera[key] {
                views[i].roles.append(role)
            } else {
                byCamera[key] = views.count
                views.append(PlannedView(camera: camera, roles: [role]))
            }
        }
        if let stillCamera { add(stillCamera, .image) }
        if let orbit, job.framesDirectory != nil || job.animation != nil {
            for k in 0..<orbit.frames { add(orbit.camera(frame: k), .frame(k)) }
        }
        if let sheet = job.sheet, let orbit {
            for (j, camera) in sheet.plan.cameras(on: orbit).enumerated() { add(camera, .tile(j)) }
        }
        return views
    }
}

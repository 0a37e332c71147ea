import SplatCore
import SplatService

/// The thumbnail API on a router: `POST /v1/render`, `/v1/sheet`, `/v1/animation` and
/// `/v1/info`. Each request's parameters are read when its headers arrive; bad ones are
/// answered 400 before any of the body is read, and a body declared larger than the memory
/// budget 413 (its input alone would not fit).
public enum SceneRoutes {
    /// Adds the job routes to `router`, each holding requests to `settings`.
    public static func install(on router: inout Router, settings: SceneServiceSettings) {
        for route in SceneRoute.allCases {
            router.postJob(route.rawValue) { request in start(route, request, settings: settings) }
        }
    }

    /// A router with the job routes (the server adds `/healthz`, `/readyz` and `/metrics`).
    public static func router(settings: SceneServiceSettings) -> Router {
        var router = Router()
        install(on: &router, settings: settings)
        return router
    }

    static func start(_ route: SceneRoute, _ request: HTTPRequest, settings: SceneServiceSettings) -> JobStart {
        let scene: SceneRequest
        do throws(SplatError) {
            scene = try SceneRequest(route: route, query: request.query, settings: settings)
        } catch {
            return .refuse(.error(error))
        }
        if let length = request.contentLength, length > settings.memoryBudgetBytes {
            return .refuse(.error(SplatError(.tooLarge, "a body of \(length) bytes alone exceeds the memory budget of \(settings.memoryBudgetBytes) bytes (--memory-budget)",
                                             field: "memory-budget")))
        }
        return .start(SceneJobHandler(request: scene, declaredBytes: request.contentLength), timeout: scene.timeout)
    }
}

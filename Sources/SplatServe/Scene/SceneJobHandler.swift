import SplatCore
import SplatFormats
import SplatService

/// A job route's work for one request: the body streams into a capped buffer; from its first
/// bytes the scene header is read as soon as the format allows (`PrefixHeaderReader`), so a
/// scene over the limits is refused (413) before the rest is read, and — when the body's length
/// is declared — the job's estimated peak is reserved from the admission controller while the
/// rest uploads. A header only the whole body gives is read when the body is complete. The job
/// then runs on a job thread as a `SceneJob` (or `InfoJob`) on the body's bytes, under the
/// request's token (its deadline, a client that went away, a drain that ran out of grace).
final class SceneJobHandler: JobHandler {
    let request: SceneRequest
    private let buffer: RequestBodyBuffer
    private let declaredBytes: Int?
    /// Whether the header was read (or found to need the whole body) and the reservation asked.
    private var headerSettled = false
    private var admittedEarly = false
    /// The body's bytes once complete, for the job.
    private var input: InputBytes?
    /// The next body length at which the header is tried again (doubling, so reading a header
    /// from a prefix costs at most twice the bytes read).
    private var nextAttempt: Int

    init(request: SceneRequest, declaredBytes: Int?) {
        self.request = request
        self.declaredBytes = declaredBytes
        buffer = RequestBodyBuffer(expectedBytes: declaredBytes, capacityLimit: request.settings.maxBodyBytes)
        nextAttempt = min(PrefixHeaderReader.sniffBytes, max(1, declaredBytes ?? PrefixHeaderReader.sniffBytes))
    }

    func receive(_ bytes: UnsafeRawBufferPointer) -> BodyVerdict {
        guard buffer.append(bytes) else {
            return .refuse(.error(status: 413, kind: ServeErrorKind.bodyTooLarge,
                                  message: "the body exceeds the limit of \(buffer.capacityLimit) bytes (--max-body-bytes)"))
        }
        guard !headerSettled, buffer.count >= nextAttempt, buffer.count != declaredBytes else { return .proceed }
        let outcome: PrefixHeaderReader.Outcome
        do throws(SplatError) {
            outcome = try PrefixHeaderReader.read(prefix: buffer.bytes, totalBytes: declaredBytes, name: SceneRequest.inputName,
                                                  format: request.load.format, limits: request.load.limits)
        } catch {
            headerSettled = true
            return .refuse(SceneResponse.failure(error, request: request))
        }
        switch outcome {
        case .more:
            nextAttempt = buffer.count * 2
            return .proceed
        case .whole:
            headerSettled = true
            return .proceed
        case .header(let header):
            headerSettled = true
            // With the length unknown the input's share of the estimate is not known either:
            // refuse now what is already too large, reserve at the end.
            let (estimate, refusal) = request.admission(header: header, inputBytes: declaredBytes ?? buffer.count)
            if let refusal { return .refuse(SceneResponse.failure(refusal, request: request)) }
            guard declaredBytes != nil else { return .proceed }
            admittedEarly = true
            return .admit(estimatedBytes: estimate)
        }
    }

    func bodyComplete() -> BodyVerdict {
        let body: InputBytes
        do throws(SplatError) {
            body = try InputBytes.checked(owning: buffer.takeBytes(), name: SceneRequest.inputName,
                                          format: request.load.format, limits: request.load.limits)
        } catch {
            return .refuse(SceneResponse.failure(error, request: request))
        }
        input = body
        if admittedEarly { return .proceed }
        let header: SceneHeader
        do throws(SplatError) {
            header = try SceneLoader.readHeader(.memory(body), format: request.load.format, limits: request.load.limits)
        } catch {
            return .refuse(SceneResponse.failure(error, request: request))
        }
        let (estimate, refusal) = request.admission(header: header, inputBytes: body.bytes.count)
        if let refusal { return .refuse(SceneResponse.failure(refusal, request: request)) }
        return .admit(estimatedBytes: estimate)
    }

    func run(_ context: JobContext) -> HTTPResponse {
        guard let input else {
            return .error(status: 500, kind: ServeErrorKind.internalError, message: "the job started without its body")
        }
        self.input = nil
        let scene = SceneInput.memory(input)
        if request.route == .info {
            do throws(SplatError) {
                let job = request.infoJob(input: scene)
                let info = try context.cancellation.bind { () throws(SplatError) in try job.run() }
                return SceneResponse.info(info)
            } catch {
                return SceneResponse.failure(error, request: request)
            }
        }
        let outcome = request.sceneJob(input: scene, cancellation: context.cancellation).run()
        return SceneResponse.scene(outcome, request: request)
    }
}

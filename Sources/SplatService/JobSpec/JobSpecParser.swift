import Foundation
import SplatCore
import SplatImage

/// Reads the job schema (see `JobSpec`) into a runnable `JobSpec`. Every option key is a long
/// option name of the command line and every value is validated by the same `OptionTable` rows
/// and `OptionValueParser` as `--name value`: JSON strings as typed, numbers as their digits,
/// `true`/`false` for switches, and arrays of numbers for `x,y,z` and list values. Anything the
/// schema does not allow — an unknown key, a bad value, a location outside its root or with
/// another scheme — is `bad_job`, found before anything is fetched or decoded.
public enum JobSpecParser {
    /// Most outputs one job may have.
    public static let maxOutputs = 32
    /// Longest `id`, in UTF-8 bytes.
    public static let maxIDBytes = 256

    /// The keys of a job object.
    static let jobKeys: Set<String> = ["id", "input", "options", "outputs"]
    /// Options of the worker or the command line, never of a job: the outputs say where they
    /// go, the worker owns its memory budget, and training cameras are a local file.
    static let faceOnly: Set<OptionName> = [.help, .version, .verbose, .quiet, .json, .out, .report, .progress, .sheet,
                                            .animation, .memoryBudget, .cameras, .view]
    /// Options of the whole job: the scene is fetched, decoded and converted once, under one deadline.
    static let jobWide: Set<OptionName> = [.format, .maxDecodedBytes, .maxShDegree, .sourceFrame, .flip, .strict,
                                           .maxInputBytes, .threads, .timeout]

    /// Parses one job, resolving its locations against `roots`.
    public static func parse(_ text: String, roots: JobLocationRoots = JobLocationRoots.unconfined) throws(SplatError) -> JobSpec {
        guard case .object(let members) = try JobJSON.parse(text) else {
            throw bad("the job must be a JSON object {\"id\", \"input\", \"options\", \"outputs\"}")
        }
        for key in members.keys.sorted() where !jobKeys.contains(key) {
            throw bad("unknown key \"\(key)\"; a job has id, input, options and outputs", field: key)
        }
        guard case .string(let id)? = members["id"], !id.isEmpty, id.utf8.count <= maxIDBytes,
              !id.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) else {
            throw bad("\"id\" must be a string of 1…\(maxIDBytes) bytes without control characters", field: "id")
        }
        guard case .string(let inputText)? = members["input"] else {
            throw bad("\"input\" must be a string: file:///absolute/path or an http(s):// URL", field: "input")
        }
        let input = try roots.input(inputText)

        var shared: [OptionName: OptionValue] = [:]
        if let options = members["options"] {
            guard case .object(let fields) = options else { throw bad("\"options\" must be an object", field: "options") }
            for key in fields.keys.sorted() {
                let spec = try jobOption(key)
                if let value = try value(fields[key]!, for: spec, at: "options") { shared[spec.name] = value }
            }
        }
        var options = ParsedCommand(command: .render, given: shared.filter { names(of: .render).contains($0.key) })
        try defaults(&options, at: "options")

        guard case .array(let list)? = members["outputs"], (1...maxOutputs).contains(list.count) else {
            throw bad("\"outputs\" must be an array of 1…\(maxOutputs) outputs", field: "outputs")
        }
        var outputs: [JobSpec.Output] = []
        for (index, item) in list.enumerated() {
            outputs.append(try output(item, at: "outputs[\(index)]", shared: shared, roots: roots))
        }
        for (index, output) in outputs.enumerated() where outputs[..<index].contains(where: { $0.location == output.location }) {
            throw bad("outputs[\(index)]: another output already writes to \(output.location)", field: "to")
        }
        return JobSpec(id: id, input: input, options: options, outputs: outputs)
    }

    /// The job's `id` when `text` is a JSON object with a string `id`: names the result of a
    /// job that could not be parsed.
    public static func id(in text: String) -> String? {
        guard case .object(let members)? = try? JobJSON.parse(text), case .string(let id)? = members["id"],
              id.utf8.count <= maxIDBytes else { return nil }
        return id
    }

    // MARK: - Outputs

    private static func output(_ item: JobJSON, at place: String, shared: [OptionName: OptionValue],
                               roots: JobLocationRoots) throws(SplatError) -> JobSpec.Output {
        guard case .object(let fields) = item else { throw bad("\(place) must be an object {\"kind\", \"to\", …}", field: "outputs") }
        guard case .string(let kindText)? = fields["kind"], let kind = JobSpec.Kind(rawValue: kindText) else {
            throw bad("\(place): \"kind\" must be one of " + JobSpec.Kind.allCases.map(\.rawValue).joined(separator: ", "), field: "kind")
        }
        guard case .string(let target)? = fields["to"] else {
            throw bad("\(place): \"to\" must be a string: file:///absolute/path or an http(s):// URL", field: "to")
        }
        let location = try roots.output(target)
        let allowed = outputNames(of: kind)
        var given = shared.filter { allowed.contains($0.key) }
        var own: Set<OptionName> = []
        for key in fields.keys.sorted() where key != "kind" && key != "to" {
            let spec = try outputOption(key, kind: kind, at: place)
            own.insert(spec.name)
            // `false` for a switch turns off one the job's options turned on.
            given[spec.name] = try value(fields[key]!, for: spec, at: place)
        }

        var format: ImageFormat?
        let path = location.pathForFormat
        if kind == .animation {
            let ext = (path as NSString).pathExtension.lowercased()
            guard ext.isEmpty || ext == "webp" else {
                throw bad("\(place): an animation is an animated WebP; name it .webp, not .\(ext)", field: "to")
            }
        } else {
            let named: String? = if case .choice(let name)? = given[.outFormat] { name } else { nil }
            guard let chosen = named.flatMap(ImageFormat.init(name:)) ?? ImageFormat(path: path) else {
                throw bad("\(place): cannot tell the image format of \(location): end it in .png, .webp, .jpg or .jpeg, or give out-format",
                          field: "to")
            }
            format = chosen
            // The job's quality is for its lossy stills; a PNG beside them ignores it, as in one
            // command-line job. An output's own quality on a PNG is refused, as --quality is.
            if !chosen.takesQuality, !own.contains(.quality) { given[.quality] = nil }
        }
        var options = ParsedCommand(command: kind.command, given: given)
        try defaults(&options, at: place)
        do throws(SplatError) {
            try options.imageEncoding.validate(for: format.map { "output." + $0.fileExtension })
            if kind == .sheet { try options.sheetPlan.validate() }
        } catch {
            throw bad("\(place): \(error.message)", field: error.field)
        }
        return JobSpec.Output(kind: kind, location: location, target: target, options: options, format: format)
    }

    // MARK: - Option keys and values

    /// Option names a command's rows give it.
    static func names(of command: CommandName) -> Set<OptionName> {
        Set(OptionTable.options(for: command).map(\.name))
    }

    /// Options a job's `options` object may hold.
    static let jobNames: Set<OptionName> = names(of: .render).union(names(of: .turntable)).subtracting(faceOnly)

    /// Options an output of `kind` may set for itself; `out-format` names a sheet's format too.
    static func outputNames(of kind: JobSpec.Kind) -> Set<OptionName> {
        var names = names(of: kind.command).subtracting(faceOnly).subtracting(jobWide)
        if kind == .sheet { names.insert(.outFormat) }
        return names
    }

    /// The row of an option a job names: the render command's, else the turntable's.
    static func row(_ name: OptionName) -> OptionSpec? {
        OptionTable.options(for: .render).first { $0.name == name } ?? OptionTable.options(for: .turntable).first { $0.name == name }
    }

    private static func jobOption(_ key: String) throws(SplatError) -> OptionSpec {
        guard let name = OptionName(rawValue: key), jobNames.contains(name), let spec = row(name) else {
            throw unknown(key, at: "options")
        }
        return spec
    }

    private static func outputOption(_ key: String, kind: JobSpec.Kind, at place: String) throws(SplatError) -> OptionSpec {
        guard let name = OptionName(rawValue: key), jobNames.contains(name) || name == .outFormat else {
            throw unknown(key, at: place)
        }
        if jobWide.contains(name) {
            throw bad("\(place): \"\(key)\" applies to the whole job (its scene is read once); put it in \"options\"", field: key)
        }
        guard outputNames(of: kind).contains(name), let spec = row(name) else {
            throw bad("\(place): \"\(key)\" does not apply to \(kind == .sheet ? "a" : "an") \(kind.rawValue) output", field: key)
        }
        return spec
    }

    private static func unknown(_ key: String, at place: String) -> SplatError {
        if let name = OptionName(rawValue: key), faceOnly.contains(name) {
            return bad("\(place): \"\(key)\" is set by the worker or the command line, not by a job", field: key)
        }
        var message = "\(place): unknown option \"\(key)\""
        if let guess = OptionTable.closestOption(to: key, command: .turntable) ?? OptionTable.closestOption(to: key, command: .render),
           let name = OptionName(rawValue: guess), jobNames.contains(name) {
            message += "; did you mean \"\(guess)\"?"
        }
        return bad(message, field: key)
    }

    /// The option value a JSON value stands for; nil for a switch set to `false`.
    static func value(_ json: JobJSON, for spec: OptionSpec, at place: String) throws(SplatError) -> OptionValue? {
        let key = spec.name.rawValue
        if spec.kind == .flag {
            guard case .bool(let on) = json else { throw bad("\(place): \"\(key)\" is a switch: give true or false", field: key) }
            return on ? .flag : nil
        }
        let text: String
        switch json {
        case .string(let string): text = string
        case .integer(let whole): text = String(whole)
        case .number(let number): text = OptionTable.text(number)
        case .array(let items) where spec.kind.takesNumberList:
            var parts: [String] = []
            for item in items {
                switch item {
                case .integer(let whole): parts.append(String(whole))
                case .number(let number): parts.append(OptionTable.text(number))
                default: throw bad("\(place): \"\(key)\" takes an array of numbers", field: key)
                }
            }
            text = parts.joined(separator: ",")
        default:
            throw bad("\(place): \"\(key)\" takes a string or a number, not \(json.typeName)", field: key)
        }
        do throws(UsageError) {
            return try OptionValueParser.parse(text, for: spec)
        } catch {
            throw bad("\(place): \(error.message)", field: key)
        }
    }

    private static func defaults(_ options: inout ParsedCommand, at place: String) throws(SplatError) {
        do throws(UsageError) { try options.applyDefaults() } catch { throw bad("\(place): \(error.message)") }
    }

    static func bad(_ message: String, field: String? = nil) -> SplatError {
        SplatError(.badJob, message, field: field)
    }
}

extension OptionKind {
    /// Whether a value is several numbers (`x,y,z`, `r,g,b`, `A,B,…`), which a job may write as an array.
    var takesNumberList: Bool {
        switch self {
        case .vector3, .direction, .colour, .numberList: true
        default: false
        }
    }
}

extension OptionTable {
    /// The command table.
    public static let commands: [CommandSpec] = [
        CommandSpec(name: .render, synopsis: "[render] SCENE --out FILE.png [options]",
                    summary: "render a scene to a PNG, WebP or JPEG image (the default command)",
                    details: """
                    Decodes SCENE (a path, a SOG folder or meta.json, or - for standard input), converts it to the
                    render frame (RUB: x right, y up, z back) using the frame decision (--source-frame, then the
                    file's declaration, then the format's convention), and renders one image. Without a camera the
                    automatic three-quarter view is used; with only --camera-pos the camera looks at the framed centre.
                    Camera coordinates are in the render frame: with --source-frame RUB nothing is converted, so a
                    camera given in a file's stored coordinates works.
                    """,
                    positionals: ["SCENE"], positionalCount: 1...1),
        CommandSpec(name: .turntable, synopsis: "turntable SCENE --out DIR [--frames N] [--elevation DEG] [--sheet FILE.png] [--animation FILE.webp] [options]",
                    summary: "render frames orbiting the scene, a contact sheet and an animated WebP",
                    details: """
                    Decodes SCENE once and renders --frames views orbiting the framed centre about the render frame's
                    up axis (+Y) at a fixed --elevation and the automatic framing distance, frame k at azimuth
                    --azimuth + 360·k/frames; frame 0 with the defaults is exactly the view render uses without a
                    camera. An SPZ file's safe-orbit hints clamp the elevation and the minimum distance (unless the
                    scene was converted). Outputs: DIR/frame_000.png …, --sheet (tiles of --sheet-views views per row,
                    one row per --sheet-elevations angle, each rendered at --resolution and shrunk by
                    --sheet-downscale) and --animation (a looping animated WebP). At least one output is needed. A
                    failed run removes what it wrote.
                    """,
                    positionals: ["SCENE"], positionalCount: 1...1),
        CommandSpec(name: .thumbnails, synopsis: "thumbnails IN... --out-dir DIR [--jobs N] [--turntable FRAMES] [--sheet] [--animation] [--report FILE.jsonl] [options]",
                    summary: "batch: a thumbnail (and optional turntable, sheet, animation) for every input",
                    details: """
                    Each IN is a scene file, a SOG folder, or a folder scanned recursively (sorted, hidden names skipped)
                    for .spz .ply .sog .splat .glb .gltf .ksplat files and SOG folders; --from-stdin adds paths read from
                    standard input.
                    Every input gets DIR/<stem>.png (the automatic view), and with the options DIR/<stem>/frame_NNN.png,
                    DIR/<stem>.sheet.png and DIR/<stem>.webp; outputs of a scanned folder mirror its tree
                    (DIR/sub/<stem>.png), files named directly whose stems would collide get -2, -3, … in argument order.
                    Links to folders are not followed. One bad file never stops the rest: each input gets one JSON line in
                    --report (as inputs finish, each with its input index), and a failed input leaves no outputs. Headers
                    are read first: a file over --max-decoded-bytes or --memory-budget fails with too_large without
                    decoding, and inputs run --jobs at a time only while their estimated peaks together fit
                    --memory-budget; --skip-existing skips inputs whose outputs are all there (resuming a killed run).
                    Exit status 0 when every input succeeded, 2 when some failed.
                    With --job-file, each line of FILE.jsonl is a job in the fleet's job schema (input and outputs by
                    URL, see worker) instead; --shard K/N keeps only the inputs whose relative path hashes to shard K.
                    """,
                    positionals: ["IN..."], positionalCount: 0...Int.max),
        CommandSpec(name: .serve, synopsis: "serve [--listen HOST:PORT] [--workers N] [--queue N] [--memory-budget BYTES] [--max-body-bytes BYTES] [--request-timeout SECONDS] [--grace SECONDS] [--quiet] [decode limits]",
                    summary: "run the thumbnail service: an HTTP server that renders POSTed scenes",
                    details: """
                    Serves POST /v1/render (an image of the scene in the body), /v1/sheet (a contact sheet), /v1/animation
                    (an animated WebP turntable) and /v1/info (the JSON object of info), with the options of render,
                    turntable and info as query parameters (resolution=256x256, flip=1, timeout=2.5, output=webp, …), plus
                    GET /healthz, /readyz and /metrics (Prometheus). At most --workers jobs run at once, their estimated
                    peaks together within --memory-budget; up to --queue more wait in arrival order, and past that a request
                    is answered 503 with Retry-After. Errors are JSON: {"error": {"kind", "message", "field", "offset"}}.
                    The decode limits given here apply to every request (a request may only lower them). One JSON line per
                    request goes to standard error unless --quiet. SIGTERM or SIGINT drains: /readyz turns 503, new
                    connections are refused, requests in flight and queued finish (up to --grace), then the process exits
                    0. Every option may also be set as SPLATRENDER_<NAME> in the environment (SPLATRENDER_LISTEN,
                    SPLATRENDER_WORKERS, …); the command line wins.
                    """,
                    positionals: [], positionalCount: 0...0, readsEnvironment: true),
        CommandSpec(name: .info, synopsis: "info FILE... [--json] [--bounds] [options]",
                    summary: "describe a scene from its header",
                    details: """
                    Reads only the header (unless --bounds is given) and prints the format, version, splat count,
                    SH degree, model, frame decision with its reason, the declared decoded size and whether it fits
                    the 768 MiB service ceiling and --max-decoded-bytes, warnings and format details. A file over
                    the ceiling is reported (exit 0), not refused. With several files, each is described in turn
                    (--json: one JSON line per file; a file that cannot be read gives a line with its "error");
                    the exit status is then 0 when every file was read and 2 when some were not.
                    """,
                    positionals: ["FILE..."], positionalCount: 1...Int.max),
        CommandSpec(name: .convert, synopsis: "convert IN OUT.ply|OUT.spz|OUT.glb|OUT.gltf [--to-frame FRAME | --keep-frame] [--spz-version 3|4] [options]",
                    summary: "convert a scene to PLY, SPZ or glTF",
                    details: """
                    Decodes IN and writes OUT (.ply, .spz, .glb or .gltf, from its extension) atomically. By default
                    the values are converted from the source's frame decision (--source-frame, the file's declaration,
                    --up / training cameras / the up estimate, the format's convention) into OUT's convention (PLY: RDF,
                    so PLY viewers show it upright; SPZ: RUB, recorded in the file; glTF: LUF, +Y up), or into FRAME
                    with --to-frame. --keep-frame writes the stored values unchanged.
                    """,
                    positionals: ["IN", "OUT"], positionalCount: 2...2),
        CommandSpec(name: .worker, synopsis: "worker --redis URL [--stream KEY] [--group NAME] [--consumer NAME] [--results KEY] [--dead KEY] [--lease SECONDS] [--max-attempts N] [--concurrency N] [--grace SECONDS] [--memory-budget BYTES] [--input-root DIR] [--output-root DIR] [--metrics-listen HOST:PORT]",
                    summary: "run jobs from a Redis stream as one worker of a fleet",
                    details: """
                    Joins the consumer group --group on the stream --stream (creating both if missing) and runs every
                    job read from it: a stream entry's field job holds {"id", "input", "options", "outputs"}, the input
                    and each output's "to" a file:// path (inside --input-root / --output-root when given) or an
                    http(s):// URL (fetched, or uploaded with PUT). Each finished job adds a result to --results (id,
                    status, attempt, worker, report) after its outputs are stored, and is then acknowledged. Permanent
                    failures (bad job, invalid scene, too large) also go to --dead at once; transient ones (network or
                    storage I/O) are retried after the lease, up to --max-attempts. Entries of a worker that died are
                    claimed by the others after --lease. SIGTERM stops reading, lets running jobs finish (up to --grace)
                    and exits 0. Every option may also be set as SPLATRENDER_<NAME> in the environment (SPLATRENDER_REDIS,
                    SPLATRENDER_MAX_ATTEMPTS, …); the command line wins.
                    """,
                    positionals: [], positionalCount: 0...0, readsEnvironment: true),
        CommandSpec(name: .help, synopsis: "help [COMMAND]", summary: "show help for a command",
                    details: "Prints the usage of COMMAND, or the overview when no command is given.",
                    positionals: ["COMMAND"], positionalCount: 0...1),
    ]
}

extension OptionTable {
    /// Rows of `serve` (the decode limits, `--memory-budget` and `--quiet` are shared rows; `--grace`
    /// is `worker`'s too, with its own default).
    static let serveRows: [OptionSpec] = [
        OptionSpec(.listen, .text, default: ServeDefaults.listen, placeholder: "HOST:PORT", for: [.serve],
                   "address to listen on: a numeric IPv4 address, [IPv6] or :PORT for every IPv4 interface; port 0 takes a free port (the line 'listening on HOST:PORT' on standard output names it)"),
        OptionSpec(.workers, .integer(1...1024), for: [.serve],
                   "jobs run at once (default: one per core; each job's stages already use every core)"),
        OptionSpec(.queue, .integer(0...65_536), for: [.serve],
                   "jobs that may wait, in arrival order, for a worker and a memory reservation; one more is answered 503 busy at once (default: 2 × --workers)"),
        OptionSpec(.maxBodyBytes, .byteCount, for: [.serve],
                   "largest request body; a larger Content-Length is refused with 413 before any of it is read (default: the largest file the decode limits admit in any format, 4 × --max-decoded-bytes or the 768 MiB ceiling, as --max-input-bytes; 3 GiB)"),
        OptionSpec(.requestTimeout, .number(0.001...86_400), default: OptionTable.text(ServeDefaults.requestTimeoutSeconds),
                   placeholder: "SECONDS", for: [.serve],
                   "every request's deadline, from its headers to its answer (upload, queue and work); a request's timeout= may ask for less, never more; past it the answer is 504"),
        OptionSpec(.grace, .number(0...86_400), default: OptionTable.text(ServeDefaults.graceSeconds), placeholder: "SECONDS", for: [.serve, .worker],
                   "on SIGTERM or SIGINT, how long requests in flight and queued may take to finish before they are cancelled (503); the process then exits 0",
                   variants: [.worker: OptionVariant(.number(0...86_400), default: OptionTable.text(WorkerDefaults.graceSeconds), placeholder: "SECONDS",
                                                     "on SIGTERM or SIGINT, how long running jobs may take to finish; then they are cancelled, their entries stay pending for another worker to claim, and the process exits 0")]),
    ]
}

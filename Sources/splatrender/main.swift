#if canImport(Glibc)
import Glibc
#endif
import SplatRenderCLI

// All logic lives in SplatRenderCLI so it can be tested in-process.
exit(CommandRunner.main(Array(CommandLine.arguments.dropFirst())))

#if canImport(Glibc)
import Glibc
#endif
import SplatRenderCLI

// All logic lives in SplatRenderCLI so it can be tested in-process.
exit(CommandRunner.run(Array(CommandLine.arguments.dropFirst()),
                       stdout: FileDescriptorOutput(descriptor: 1), stderr: FileDescriptorOutput(descriptor: 2)))

import Glibc
import Agent

// The `edgemotion` command line: one sub-command per file, registered in `CommandLineTool.commands`.
let status = CommandLineTool.run(arguments: Array(CommandLine.arguments.dropFirst()))
exit(status)

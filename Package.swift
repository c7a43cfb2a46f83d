// swift-tools-version:5.10
import PackageDescription

// The targets are the architecture: each layer imports only the layers under it, and the
// build's `--explicit-target-dependency-import-check error` refuses an import a target hasn't
// declared. From the bottom:
//
//   JSONValue      the JSON value, parser and writer (the leaf)
//   AudioSignal    the signal library: numbers in, numbers and typed reasons out. No files, no
//                  C but the vector kernels and the FFT; a product other Swift programs import
//   AudioIO        decoding, writing, ffmpeg, the cache, tags and probes: files and processes
//   ToolRunner     options, the runner, records, errors and the sentences a person reads
//   AudioToolsKit  one folder per tool (options, job, record), the reports
//   lufs-measure … audio-tools   one-line mains
let tools = ["lufs-measure", "lufs-normalize", "vo-align", "audio-probe", "library-filter"]
// All five in one program that runs as whichever it is called (a link named lufs-measure, or
// `audio-tools lufs-measure ...`): what the Debian package installs, one copy of the runtime.
let multiCall = "audio-tools"
let executables = tools + [multiCall]
// Flags SwiftPM calls unsafe are the Makefile's own build's (`make` exports AUDIO_TOOLS_MAKE=1):
// exclusivity checks off in the layers with the hot loops, and the C kernels optimised in debug
// builds too, so the tests' runs of the speech detector take seconds. A package that depends on
// AudioSignal by version gets none, as SwiftPM requires of a versioned dependency.
let ownBuild = Context.environment["AUDIO_TOOLS_MAKE"] == "1"
let fast: [SwiftSetting] = ownBuild ? [.unsafeFlags(["-enforce-exclusivity=unchecked"])] : []
let kernelsInDebug: [CSetting] = ownBuild ? [.unsafeFlags(["-O2"], .when(configuration: .debug))] : []

let package = Package(
    name: "audio-tools",
    products: executables.map { .executable(name: $0, targets: [$0]) } + [
        .library(name: "AudioSignal", targets: ["AudioSignal"]),
    ],
    targets: [
        .systemLibrary(name: "CSndfile", pkgConfig: "sndfile",
                       providers: [.apt(["libsndfile1-dev"])]),
        .systemLibrary(name: "CSamplerate", pkgConfig: "samplerate",
                       providers: [.apt(["libsamplerate0-dev"])]),
        // No pkgConfig: its cflags are -D flags SwiftPM refuses with a warning; the shim defines them.
        .systemLibrary(name: "CKissFFT", providers: [.apt(["libkissfft-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"])]),
        // Opus in Ogg through the reference decoder (pre-skip, end trimming, chained links, gain).
        .systemLibrary(name: "COpusFile", pkgConfig: "opusfile",
                       providers: [.apt(["libopusfile-dev"])]),
        // A small C++ target over TagLib (Debian libtag1-dev) with a C interface: tags in, tags out.
        .target(name: "CTagLib", linkerSettings: [.linkedLibrary("tag"), .linkedLibrary("stdc++")]),
        // Hot loops for one instruction set each (AVX2), chosen at run time; bit-identical to Swift's.
        .target(name: "CVectorKernels", cSettings: kernelsInDebug),

        .target(name: "JSONValue"),
        .target(name: "AudioSignal", dependencies: ["CVectorKernels", "CKissFFT"], swiftSettings: fast),
        .target(name: "AudioIO",
                dependencies: ["AudioSignal", "JSONValue",
                               "CSndfile", "CSamplerate", "CSQLite", "CTagLib", "COpusFile"],
                swiftSettings: fast),
        .target(name: "ToolRunner", dependencies: ["AudioIO", "AudioSignal", "JSONValue"], swiftSettings: fast),
        .target(name: "AudioToolsKit", dependencies: ["ToolRunner", "AudioIO", "AudioSignal", "JSONValue"],
                swiftSettings: fast),

        .testTarget(name: "AudioToolsTests",
                    dependencies: ["AudioToolsKit", "ToolRunner", "AudioIO", "AudioSignal", "JSONValue"]),
        .testTarget(name: "EndToEndTests",
                    dependencies: ["AudioToolsKit", "ToolRunner", "AudioIO", "AudioSignal", "JSONValue"]
                        + executables.map { .target(name: $0) }),
    ] + executables.map { .executableTarget(name: $0, dependencies: ["AudioToolsKit"]) }
)

// swift-tools-version:5.10
import PackageDescription

// One core library (AudioTools) holds everything but argument wiring; each executable is a
// few lines that hand a tool description to ToolMain. C libraries come from the system.
let tools = ["lufs-measure", "lufs-normalize", "vo-align", "audio-probe", "library-filter"]
// All five in one program that runs as whichever it is called (a link named lufs-measure, or
// `audio-tools lufs-measure ...`): what the Debian package installs, one copy of the runtime.
let multiCall = "audio-tools"

let package = Package(
    name: "audio-tools",
    products: (tools + [multiCall]).map { .executable(name: $0, targets: [$0]) },
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
        // Optimised in debug builds too, so the tests' runs of the speech detector take seconds.
        .target(name: "CVectorKernels", cSettings: [.unsafeFlags(["-O2"], .when(configuration: .debug))]),
        .target(
            name: "AudioTools",
            dependencies: ["CSndfile", "CSamplerate", "CKissFFT", "CSQLite", "CTagLib", "CVectorKernels", "COpusFile"],
            swiftSettings: [.unsafeFlags(["-enforce-exclusivity=unchecked"])]
        ),
        .testTarget(name: "AudioToolsTests", dependencies: ["AudioTools"]),
        .testTarget(name: "EndToEndTests", dependencies: ["AudioTools"] + (tools + [multiCall]).map { .target(name: $0) }),
    ] + (tools + [multiCall]).map { .executableTarget(name: $0, dependencies: ["AudioTools"]) }
)

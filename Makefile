# audio-tools: build, test, benchmark and run the pipeline.
# `make demo` and `make test` do all the set-up a fresh Debian machine needs.

SWIFT      ?= swift
# The package's own build: Package.swift turns on its speed flags (exclusivity checks off in the
# hot loops, the C kernels optimised in debug builds), which a package depending on it by version
# must go without.
export AUDIO_TOOLS_MAKE := 1
PREFIX     ?= /usr/local
CONFIG     ?= release
BIN        := .build/$(CONFIG)
TOOLS      := lufs-measure lufs-normalize vo-align audio-probe library-filter
# The one program that is all of them (what install and the package put in bin, with a link per tool).
MULTICALL  := audio-tools
SUDO       := $(if $(filter 0,$(shell id -u)),,sudo)
BENCH_DIR  ?= .build/bench
# The project's version, from the one constant in the core (what --version prints).
VERSION    := $(shell sed -n 's/.*let string = "\([^"]*\)".*/\1/p' Sources/ToolRunner/CLI/Version.swift)

# Where `make install` puts things, below DESTDIR (for staging) and PREFIX.
BINDIR      = $(PREFIX)/bin
MANDIR      = $(PREFIX)/share/man
BASHCOMPDIR = $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  = $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR = $(PREFIX)/share/fish/vendor_completions.d
# The doc pages the man pages cite (cache.md, albums-and-replaygain.md, ...), with README.md.
DOCDIR      = $(PREFIX)/share/doc/audio-tools
DOCS       := README.md $(wildcard docs/*.md) docs/lufs-measure-report.svg
# Each record's JSON Schema, which docs/records.md links (docs/schema/ beside it when installed).
SCHEMAS    := $(wildcard docs/schema/*.json)

# command => Debian package, for the build itself: lld links the release build (see STATIC_LINK).
# Swift's toolchains for Linux ship it beside swift; Debian's lld package is the fallback.
BUILD_DEPS := ld.lld:lld
# pkg-config module => Debian package, for the libraries the package links.
LIB_DEPS   := sndfile:libsndfile1-dev samplerate:libsamplerate0-dev kissfft-float:libkissfft-dev taglib:libtag1-dev
# SQLite keeps the --cache of audio-probe, library-filter and lufs-measure.
LIB_DEPS   += sqlite3:libsqlite3-dev
# libopusfile decodes Opus (the reference decoder: pre-skip, end trimming, chained links, output gain).
LIB_DEPS   += opusfile:libopusfile-dev
# libopus itself: mono and stereo Opus packets go straight to the stream's decoder (Decode/OpusDirectDecode).
LIB_DEPS   += opus:libopus-dev
# command => Debian package, for what the tests use to make and decode material.
TEST_DEPS  := ffmpeg:ffmpeg sox:sox espeak-ng:espeak-ng man:man-db cc:gcc
# GNU parallel: the test that shards audio-probe with --pipe --keep-order.
TEST_DEPS  += parallel:parallel
# The encoders people use, for the format zoo the decode tests build (issue 26).
TEST_DEPS  += lame:lame flac:flac oggenc:vorbis-tools opusenc:opus-tools wavpack:wavpack mpg123:mpg123
# mpcenc: Musepack SV8, which only ffmpeg decodes (routed by its bytes, issue 43).
TEST_DEPS  += mpcenc:musepack-tools
# twolame (MPEG-1 Layer II), speexenc (Ogg Speex) and sndfile-convert (libsndfile's writers: W64,
# RF64, CAF, NIST, VOC, IRCAM, PAF, MAT...): the encoders DecodeEncodersE2ETests measures (issue 43).
TEST_DEPS  += twolame:twolame speexenc:speex sndfile-convert:sndfile-programs
# Chromium: the report tests render the pages in a headless browser.
TEST_DEPS  += chromium:chromium
# jq: the docs' examples use it, and the test suite runs every example (DocExamplesE2ETests).
TEST_DEPS  += jq:jq
# mp3gain: --lossless-gain's tests check that mp3gain -u undoes it and mp3gain -g gives the same frames.
TEST_DEPS  += mp3gain:mp3gain
# (mpg123, above, is also --lossless-gain's second decoder: the changed MP3s must decode without a warning.)
# python3-venv: the speech detector's test runs the reference model with onnxruntime in a scratch venv.
TEST_DEPS  += python3-venv:python3-venv
# zsh and fish: the completion scripts are loaded by the shells they are for.
TEST_DEPS  += zsh:zsh fish:fish
# openttd-opensfx: recorded game sound effects (CC-BY-SA 3.0, 10 MB), the effects in the dialogue detector's accuracy material.
TEST_DEPS  += /usr/share/games/openttd/baseset/opensfx/opensfx.cat:openttd-opensfx
# python3-jsonschema (4.10 in Debian 12: draft 2020-12): SchemaE2ETests validates every tool's records
# against docs/schema/ with it (checked by the file the package installs, whichever python3 is first in PATH).
TEST_DEPS  += /usr/lib/python3/dist-packages/jsonschema/__init__.py:python3-jsonschema
# python3-mutagen: lufs-normalize --write-tags, --remove-tags and --id3v2 are read back with a second
# tag library besides TagLib (ID3v2 versions, TXXX frames, Vorbis comments, MP4 freeform atoms).
TEST_DEPS  += /usr/lib/python3/dist-packages/mutagen/__init__.py:python3-mutagen
BENCH_DEPS := mediainfo:mediainfo python3:python3 python3-venv:python3-venv loudgain:loudgain
# GNU time: the bench reads peak memory from its %M (not every Debian install has the package).
BENCH_DEPS += /usr/bin/time:time
# pkg-config module => Debian package, for the references the tests compile against (libebur128
# checks album loudness).
TEST_LIB_DEPS := libebur128:libebur128-dev
# The speech detector's weights (lufs-measure --dialogue): Silero VAD's 16 kHz network (MIT
# licence), the 16 kHz ONNX file inside a pinned silero-vad wheel from PyPI, checked by sha256.
SPEECH_VERSION := 6.2.3
SPEECH_WHEEL   := silero_vad-$(SPEECH_VERSION)-py3-none-any.whl
SPEECH_SHA256  := 7b7f5436cfcb02fae583a05b512ea96467fd449fe54cb49a5e4f06c51a1e43b8
SPEECH_MODEL   := .build/models/silero_vad_16k_op15.onnx
# pip fetches the wheel (python3 unpacks it).
MODEL_DEPS := python3:python3 pip3:python3-pip
# command => Debian package, for `make deb`.
DEB_DEPS   := dpkg-deb:dpkg dpkg-shlibdeps:dpkg-dev readelf:binutils strip:binutils

.PHONY: speech-model all deps test-deps bench-deps build test long-test bench demo demo-files docs-report docs lint format install install-files uninstall deb deb-tree fuzz chaos clean help

all: build

help:
	@echo "make demo      build and run the pipeline on the clips in Fixtures/"
	@echo "make test      install what is missing, build, run the whole test suite"
	@echo "make long-test the tests too big for make test (a WAV over 4 GiB written as RF64: 9 GB of disk, minutes)"
	@echo "make bench     speed figures (ratios against the decode floor and other tools)"
	@echo "make docs-report  redraw the report picture in docs/ from the sample clips"
	@echo "make docs      API documentation of a library target (DOCS_TARGET=AudioSignal) in .build/docs, offline"
	@echo "make lint      check the Swift sources against .swift-format (fails on any finding)"
	@echo "make format    rewrite the Swift sources in place to .swift-format's layout"
	@echo "make install   PREFIX=/usr/local: the five tools, their man pages, bash/zsh/fish completions and docs"
	@echo "make uninstall PREFIX=/usr/local: remove all of it again"
	@echo "make deb       a Debian package in build/ (static Swift runtime): sudo apt install ./build/audio-tools_*.deb"
	@echo "make fuzz      run the parser fuzzers for a while (FUZZ_SECONDS=60)"
	@echo "make chaos     kill the writing jobs at random moments and check originals, outputs, leftovers (CHAOS_ROUNDS=60), and read damaged files (CHAOS_FILES=120)"

# Installs, with apt-get, the Debian packages whose pkg-config module or command is missing.
# On a system without apt-get it prints what to install and stops.
define install_missing
	@missing=""; \
	command -v pkg-config >/dev/null 2>&1 || missing="pkg-config"; \
	for pair in $(1); do \
	  check=$${pair%%:*}; pkg=$${pair#*:}; \
	  case "$$check" in \
	    python3-venv) python3 -c 'import ensurepip' >/dev/null 2>&1 || missing="$$missing $$pkg" ;; \
	    /*) [ -e "$$check" ] || missing="$$missing $$pkg" ;; \
	    *) if [ "$(2)" = lib ]; then pkg-config --exists $$check 2>/dev/null || missing="$$missing $$pkg"; \
	       else command -v $$check >/dev/null 2>&1 || missing="$$missing $$pkg"; fi ;; \
	  esac; \
	done; \
	if [ -n "$$missing" ]; then \
	  if command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Debian packages:$$missing"; \
	    $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	  else \
	    echo "Please install (Debian package names):$$missing" >&2; exit 1; \
	  fi; \
	fi
endef

deps:
	$(call install_missing,$(BUILD_DEPS),cmd)
	$(call install_missing,$(LIB_DEPS),lib)
	$(call install_missing,$(MODEL_DEPS),cmd)
	@$(MAKE) --no-print-directory speech-model

# The pinned wheel, checked, and the weights taken out of it into the build tree.
speech-model: $(SPEECH_MODEL)
$(SPEECH_MODEL):
	@mkdir -p .build/models
	test -f .build/models/$(SPEECH_WHEEL) || python3 -m pip download --quiet --no-deps --only-binary=:all: -d .build/models silero-vad==$(SPEECH_VERSION)
	echo "$(SPEECH_SHA256)  .build/models/$(SPEECH_WHEEL)" | sha256sum --check --quiet
	python3 -c 'import sys, zipfile; open(sys.argv[2] + ".tmp", "wb").write(zipfile.ZipFile(sys.argv[1]).read("silero_vad/data/silero_vad_16k_op15.onnx"))' .build/models/$(SPEECH_WHEEL) $@
	mv $@.tmp $@

test-deps: deps
	$(call install_missing,$(TEST_DEPS),cmd)
	$(call install_missing,$(TEST_LIB_DEPS),lib)

bench-deps: test-deps
	$(call install_missing,$(BENCH_DEPS),cmd)

# A release build links the Swift runtime in, as the Debian package does: the programs start in
# half the time (no twenty shared libraries to load) and run without the toolchain installed, and
# the bench measures what users run.
# It also links position-dependent (-no-pie): a position-independent program makes the dynamic
# loader patch some 84,000 pointers of the linked-in runtime and Foundation at every start (a
# copied page each), a few milliseconds, which is most of a short run such as an MP3's lossless
# gain. Only with the runtime linked in: against the runtime's shared libraries a position-
# dependent program makes the loader warn about their protected symbols on every start.
# It links with LLVM's lld (in the Swift toolchain, next to swift; Debian's lld elsewhere), not
# the default gold: gold and GNU ld print a warning for every program that links the static
# Foundation, whose temporary-file writer calls mktemp(3) (glibc marks it so); lld links the same
# code without that warning, and as fast a program.
STATIC_LINK := --static-swift-stdlib -Xlinker -no-pie -Xswiftc -use-ld=lld
BUILD_FLAGS ?= $(if $(filter release,$(CONFIG)),$(STATIC_LINK))
# A target may import only what Package.swift says it depends on: the layers are the compiler's to
# keep, not a convention (a wrong import is a build error, not a transitive accident).
IMPORT_CHECK := --explicit-target-dependency-import-check error

build: deps
	$(SWIFT) build -c $(CONFIG) $(BUILD_FLAGS) $(IMPORT_CHECK)

# The main job, on the sample clips: find what is usable, measure it, normalise it to the podcast
# target into build/demo, and check the written files against the same gate. Records flow as JSON
# lines between the tools into $(DEMO_OUT)/records.jsonl (what the README's jq example reads);
# summaries go to stderr, ending with lufs-measure's table of the written files.
DEMO_OUT ?= build/demo
demo: build demo-files

# The same, from tools already built in BIN (no build step).
demo-files:
	@echo "== library-filter | lufs-measure | lufs-normalize  (Fixtures/clips -> $(DEMO_OUT))"
	@mkdir -p $(DEMO_OUT)
	@$(BIN)/library-filter Fixtures/clips \
	  | $(BIN)/lufs-measure \
	  | $(BIN)/lufs-normalize --preset podcast --format flac --overwrite --out-dir $(DEMO_OUT)/audio \
	  > $(DEMO_OUT)/records.jsonl
	@echo "   records: $(DEMO_OUT)/records.jsonl"
	@echo
	@echo "== lufs-measure --preset podcast $(DEMO_OUT)/audio  (the written files, gated)"
	@$(BIN)/lufs-measure --preset podcast --summary $(DEMO_OUT)/audio > $(DEMO_OUT)/check.jsonl

# The report picture shown in docs/lufs-measure.md, drawn from a sample clip so that it stays true.
# The clip fails the EBU R 128 gate (that is what the picture shows), so the exit status 1 is expected.
DOCS_REPORT ?= build/docs-report
docs-report: build
	@rm -rf $(DOCS_REPORT)
	@$(BIN)/lufs-measure --preset ebu-r128 --no-progress --report $(DOCS_REPORT) Fixtures/clips/voiceover.wav > /dev/null; \
	  test $$? -le 1 && test -f $(DOCS_REPORT)/voiceover.wav.svg
	cp $(DOCS_REPORT)/voiceover.wav.svg docs/lufs-measure-report.svg

# API documentation of one library target (DOCS_TARGET) with the toolchain's docc, offline: no
# documentation plugin to fetch. SwiftPM writes the public symbol graphs of the debug build (the one
# make test builds), and docc turns the target's graph (with its extensions of other modules'
# types) into a static archive. Without a .docc catalog in the target, its doc comments are all.
# Only the libraries are installed first (the build needs them; the speech model it doesn't).
DOCS_TARGET ?= AudioSignal
DOCS_DIR    ?= .build/docs
DOCC        ?= docc
docs:
	$(call install_missing,$(LIB_DEPS),lib)
	@command -v $(DOCC) >/dev/null || { echo "make docs: $(DOCC), the Swift toolchain's documentation compiler, isn't on PATH: set DOCC to its path." >&2; exit 1; }
	@mkdir -p $(DOCS_DIR)
	$(SWIFT) package dump-symbol-graph --minimum-access-level public | tee $(DOCS_DIR)/symbol-graph.log
	@set -e; graphs=$$(sed -n 's/^Files written to //p' $(DOCS_DIR)/symbol-graph.log); \
	if [ -z "$$graphs" ]; then echo "make docs: swift package dump-symbol-graph wrote no symbol graphs (its output is above)." >&2; exit 1; fi; \
	if [ ! -f "$$graphs/$(DOCS_TARGET).symbols.json" ]; then \
	  echo "make docs: no symbol graph for DOCS_TARGET=$(DOCS_TARGET): name a Swift library target of Package.swift (the graphs made are for: $$(ls "$$graphs" | sed -n 's/^\([A-Za-z0-9_]*\)\.symbols\.json$$/\1/p' | tr '\n' ' ' | sed 's/ $$//'))." >&2; exit 1; fi; \
	rm -rf $(DOCS_DIR)/$(DOCS_TARGET).symbols $(DOCS_DIR)/$(DOCS_TARGET).doccarchive; \
	mkdir -p $(DOCS_DIR)/$(DOCS_TARGET).symbols; \
	cp "$$graphs/$(DOCS_TARGET).symbols.json" $$(ls "$$graphs"/$(DOCS_TARGET)@*.symbols.json 2>/dev/null) $(DOCS_DIR)/$(DOCS_TARGET).symbols/
	$(DOCC) convert --additional-symbol-graph-dir $(DOCS_DIR)/$(DOCS_TARGET).symbols \
	  --fallback-display-name $(DOCS_TARGET) --fallback-bundle-identifier audio-tools.$(DOCS_TARGET) \
	  --output-path $(DOCS_DIR)/$(DOCS_TARGET).doccarchive
	@echo "make docs: $(DOCS_DIR)/$(DOCS_TARGET).doccarchive (a static site: python3 -m http.server -d $(DOCS_DIR)/$(DOCS_TARGET).doccarchive, then open http://localhost:8000/documentation/$$(echo $(DOCS_TARGET) | tr A-Z a-z)/)"

# The toolchain's formatter (swift format) with the checked-in .swift-format: 120 columns, 4
# spaces, the house's one-line statements kept (semicolons, several variables in one declaration,
# several enum cases on a line). `make lint` fails on any finding, `make format` fixes what it can.
FORMAT_PATHS := Sources Tests Package.swift
lint:
	$(SWIFT) format lint --strict --parallel --configuration .swift-format --recursive $(FORMAT_PATHS)

format:
	$(SWIFT) format format --in-place --parallel --configuration .swift-format --recursive $(FORMAT_PATHS)

# Swift Testing only: the suite has no XCTest cases, whose empty run would print "Executed 0 tests".
test: test-deps
	$(SWIFT) build --build-tests $(IMPORT_CHECK)
	$(SWIFT) test --skip-build --disable-xctest

# Tests that write gigabytes: skipped by `make test`, run here (LongE2ETests).
long-test: test-deps
	$(SWIFT) build --build-tests $(IMPORT_CHECK)
	AUDIO_TOOLS_LONG_TESTS=1 $(SWIFT) test --skip-build --disable-xctest --filter LongE2ETests

bench: bench-deps build
	BIN=$(BIN) BENCH_DIR=$(BENCH_DIR) python3 Tests/Bench/bench.py $(SECTIONS)

install: build
	$(install_tree)

# The same, from tools already built in BIN (no build step): for packaging and the tests.
install-files:
	$(install_tree)

# Installs the one program that is all five tools (audio-tools, from BIN) with a link named after
# each tool, and writes what the tools generate from their own option tables: one man page each,
# audio-tools-records(7) from docs/records.md, and the completion scripts; the doc pages go to DOCDIR.
define install_tree
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man7 \
	  $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR) $(DESTDIR)$(DOCDIR)
	install -m 644 $(DOCS) $(DESTDIR)$(DOCDIR)/
	install -d $(DESTDIR)$(DOCDIR)/schema && install -m 644 $(SCHEMAS) $(DESTDIR)$(DOCDIR)/schema/
	install -m 755 $(BIN)/$(MULTICALL) $(DESTDIR)$(BINDIR)/$(MULTICALL)
	install -d $(DESTDIR)$(PREFIX)/share/audio-tools && install -m 644 $(SPEECH_MODEL) $(DESTDIR)$(PREFIX)/share/audio-tools/
	set -e; for t in $(TOOLS); do \
	  ln -sfn $(MULTICALL) $(DESTDIR)$(BINDIR)/$$t; \
	  $(BIN)/$(MULTICALL) $$t --generate-man > $(DESTDIR)$(MANDIR)/man1/$$t.1; \
	  $(BIN)/$(MULTICALL) $$t --generate-completion bash > $(DESTDIR)$(BASHCOMPDIR)/$$t; \
	  $(BIN)/$(MULTICALL) $$t --generate-completion zsh > $(DESTDIR)$(ZSHCOMPDIR)/_$$t; \
	  $(BIN)/$(MULTICALL) $$t --generate-completion fish > $(DESTDIR)$(FISHCOMPDIR)/$$t.fish; \
	done
	$(BIN)/$(MULTICALL) --generate-man > $(DESTDIR)$(MANDIR)/man1/$(MULTICALL).1
	$(BIN)/$(MULTICALL) lufs-measure --generate-records-man docs/records.md > $(DESTDIR)$(MANDIR)/man7/audio-tools-records.7
	chmod 644 $(DESTDIR)$(MANDIR)/man1/*.1 $(DESTDIR)$(MANDIR)/man7/audio-tools-records.7
endef

uninstall:
	for t in $(TOOLS); do \
	  rm -f $(DESTDIR)$(BINDIR)/$$t $(DESTDIR)$(MANDIR)/man1/$$t.1 $(DESTDIR)$(BASHCOMPDIR)/$$t \
	    $(DESTDIR)$(ZSHCOMPDIR)/_$$t $(DESTDIR)$(FISHCOMPDIR)/$$t.fish; \
	done
	rm -f $(DESTDIR)$(MANDIR)/man7/audio-tools-records.7 $(DESTDIR)$(BINDIR)/$(MULTICALL) $(DESTDIR)$(MANDIR)/man1/$(MULTICALL).1
	rm -f $(addprefix $(DESTDIR)$(DOCDIR)/,$(notdir $(DOCS)))
	rm -f $(addprefix $(DESTDIR)$(DOCDIR)/schema/,$(notdir $(SCHEMAS)))
	rmdir $(DESTDIR)$(DOCDIR)/schema 2>/dev/null || true
	rmdir $(DESTDIR)$(DOCDIR) 2>/dev/null || true
	rm -rf $(DESTDIR)$(PREFIX)/share/audio-tools

# The Debian package: the five tools with the Swift runtime linked in (no toolchain needed on
# the target), linked against the system libraries of LIB_DEPS, with man pages and completions.
DEB_ARCH       := $(shell dpkg --print-architecture 2>/dev/null)
DEB_FILE       ?= build/audio-tools_$(VERSION)_$(DEB_ARCH).deb
DEB_ROOT       ?= build/deb/root
DEB_MAINTAINER ?= audio-tools maintainers <audio-tools@example.org>
DEB_STRIP      ?= strip --strip-unneeded
DEB_RECOMMENDS := ffmpeg
# xz: the smallest package (about 15 MB); gzip or zstd: faster, larger.
DEB_COMPRESS   ?= xz

deb: deps
	$(call install_missing,$(DEB_DEPS),cmd)
	$(SWIFT) build -c release $(STATIC_LINK) --product $(MULTICALL)
	@if readelf -d .build/release/$(MULTICALL) | grep -q 'libswift'; then \
	  echo "make deb: .build/release/$(MULTICALL) still links the Swift runtime dynamically." >&2; exit 1; fi
	$(MAKE) --no-print-directory deb-tree BIN=.build/release DEB_ROOT=$(DEB_ROOT)
	dpkg-deb --root-owner-group -Z$(DEB_COMPRESS) --build $(DEB_ROOT) $(DEB_FILE)
	@echo "$(DEB_FILE): install it with: sudo apt install ./$(DEB_FILE)   (remove: sudo dpkg -r audio-tools)"

# The package's file tree and control file, from the tools in BIN (the recipe `make deb` uses; the
# tests run it on a debug build). Depends: the runtime package that ships each LIB_DEPS library
# (found with pkg-config and dpkg-query, so a library added to LIB_DEPS is picked up), with the
# versions and the C/C++ runtime dpkg-shlibdeps reads from the binaries when it can.
deb-tree:
	@case "$(DEB_ROOT)" in ""|/) echo "deb-tree: DEB_ROOT must be a staging folder" >&2; exit 1;; esac
	rm -rf $(DEB_ROOT)
	$(MAKE) --no-print-directory install-files DESTDIR=$(DEB_ROOT) PREFIX=/usr ZSHCOMPDIR=/usr/share/zsh/vendor-completions
	$(if $(DEB_STRIP),$(DEB_STRIP) $(DEB_ROOT)/usr/bin/$(MULTICALL))
	gzip -9nf $(DEB_ROOT)/usr/share/man/man1/*.1 $(DEB_ROOT)/usr/share/man/man7/*.7
	install -d $(DEB_ROOT)/usr/share/doc/audio-tools $(DEB_ROOT)/DEBIAN
	@set -e; when=$$(git log -1 --format=%ct 2>/dev/null || date +%s); \
	printf '%s\n' 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' \
	  'Upstream-Name: audio-tools' '' 'Files: *' "Copyright: $$(date -u -d @$$when +%Y) the audio-tools authors" 'License: Apache-2.0' \
	  ' On Debian systems the full text of the Apache License 2.0 is in' \
	  ' /usr/share/common-licenses/Apache-2.0.' > $(DEB_ROOT)/usr/share/doc/audio-tools/copyright; \
	printf 'audio-tools ($(VERSION)) unstable; urgency=medium\n\n  * audio-tools $(VERSION).\n\n -- %s  %s\n' \
	  '$(DEB_MAINTAINER)' "$$(date -u -R -d @$$when)" | gzip -9n > $(DEB_ROOT)/usr/share/doc/audio-tools/changelog.gz
	@set -e; libpkgs=""; \
	for pair in $(LIB_DEPS); do \
	  mod=$${pair%%:*}; libdir=$$(pkg-config --variable=libdir $$mod); \
	  for l in $$(pkg-config --libs-only-l $$mod); do \
	    so=$$(readlink -f "$$libdir/lib$${l#-l}.so"); \
	    pkg=$$(dpkg-query -S "$$so" "$${so#/usr}" "/usr$$so" 2>/dev/null | head -n 1 | cut -d: -f1); \
	    if [ -z "$$pkg" ]; then echo "deb-tree: no Debian package ships $$so (-l$${l#-l} of $$mod in LIB_DEPS)" >&2; exit 1; fi; \
	    case " $$libpkgs " in *" $$pkg "*) ;; *) libpkgs="$$libpkgs $$pkg";; esac; \
	  done; \
	done; \
	shl=$$(mkdir -p $(DEB_ROOT).shlibdeps/debian && cd $(DEB_ROOT).shlibdeps && \
	  printf 'Source: audio-tools\n\nPackage: audio-tools\nArchitecture: any\n' > debian/control && \
	  dpkg-shlibdeps -O -e$(abspath $(DEB_ROOT))/usr/bin/$(MULTICALL) 2>/dev/null | sed -n 's/^shlibs:Depends=//p') || shl=""; \
	depends="$$shl"; \
	for pkg in $$libpkgs; do \
	  case ", $$shl," in *", $$pkg "*|*", $$pkg,"*) ;; *) depends="$${depends:+$$depends, }$$pkg";; esac; \
	done; \
	[ -n "$$shl" ] || echo "deb-tree: dpkg-shlibdeps could not read $(BIN) (not a static release build?): Depends without versions" >&2; \
	{ echo "Package: audio-tools"; \
	  echo "Version: $(VERSION)"; \
	  echo "Architecture: $(DEB_ARCH)"; \
	  echo "Maintainer: $(DEB_MAINTAINER)"; \
	  echo "Installed-Size: $$(du -sk $(DEB_ROOT)/usr | cut -f1)"; \
	  echo "Depends: $$depends"; \
	  echo "Recommends: $(DEB_RECOMMENDS)"; \
	  echo "Section: sound"; \
	  echo "Priority: optional"; \
	  echo "Description: batch audio tools: loudness, normalisation, alignment, probing"; \
	  echo " Small command-line programs that read and write JSON lines: lufs-measure"; \
	  echo " (ITU-R BS.1770-4 / EBU R 128 loudness and a CI gate), lufs-normalize,"; \
	  echo " vo-align (voiceover latency), audio-probe and library-filter. ffmpeg, when"; \
	  echo " installed, decodes what libsndfile can't (AAC, ALAC, WMA)."; \
	} > $(DEB_ROOT)/DEBIAN/control
	rm -rf $(DEB_ROOT).shlibdeps
	chmod -R u=rwX,go=rX $(DEB_ROOT)
	@echo "deb-tree: $(DEB_ROOT) ($$(sed -n 's/^Depends: //p' $(DEB_ROOT)/DEBIAN/control))"

# The kill harness (SIGINT, SIGTERM and SIGKILL at random moments of the writing jobs: fails on a
# damaged original, a partial output, a hang or a leftover) and the damaged-input harness (files
# of each format damaged at random: fails on a crash, a hang or a run without a record), on the
# release build; each prints its counts.
chaos: test-deps build
	BIN=$(BIN) bash Tests/Chaos/run.sh $${CHAOS_ROUNDS:-60}
	BIN=$(BIN) bash Tests/Chaos/mutate.sh $${CHAOS_FILES:-120}

fuzz: deps
	bash Tests/Fuzz/run.sh $${FUZZ_SECONDS:-60}

clean:
	rm -rf .build

# audio-tools: build, test, benchmark and run the pipeline.
# `make demo` and `make test` do all the set-up a fresh Debian machine needs.

SWIFT      ?= swift
PREFIX     ?= /usr/local
CONFIG     ?= release
BIN        := .build/$(CONFIG)
TOOLS      := lufs-measure lufs-normalize vo-align audio-probe library-filter
SUDO       := $(if $(filter 0,$(shell id -u)),,sudo)
BENCH_DIR  ?= .build/bench

# pkg-config module => Debian package, for the libraries the package links.
LIB_DEPS   := sndfile:libsndfile1-dev samplerate:libsamplerate0-dev kissfft-float:libkissfft-dev taglib:libtag1-dev
# SQLite keeps the --cache of audio-probe, library-filter and lufs-measure.
LIB_DEPS   += sqlite3:libsqlite3-dev
# command => Debian package, for what the tests use to make and decode material.
TEST_DEPS  := ffmpeg:ffmpeg sox:sox espeak-ng:espeak-ng cc:gcc
# GNU parallel: the test that shards audio-probe with --pipe --keep-order.
TEST_DEPS  += parallel:parallel
BENCH_DEPS := mediainfo:mediainfo python3:python3 python3-venv:python3-venv loudgain:loudgain
# pkg-config module => Debian package, for the references the tests compile against (libebur128
# checks album loudness).
TEST_LIB_DEPS := libebur128:libebur128-dev

.PHONY: all deps test-deps bench-deps build test bench demo install uninstall fuzz clean help

all: build

help:
	@echo "make demo      build and run the pipeline on the clips in Fixtures/"
	@echo "make test      install what is missing, build, run the whole test suite"
	@echo "make bench     speed figures (ratios against the decode floor and other tools)"
	@echo "make install   PREFIX=/usr/local: copy the five tools to PREFIX/bin"
	@echo "make fuzz      run the parser fuzzers for a while (FUZZ_SECONDS=60)"

# Installs, with apt-get, the Debian packages whose pkg-config module or command is missing.
# On a system without apt-get it prints what to install and stops.
define install_missing
	@missing=""; \
	command -v pkg-config >/dev/null 2>&1 || missing="pkg-config"; \
	for pair in $(1); do \
	  check=$${pair%%:*}; pkg=$${pair#*:}; \
	  case "$$check" in \
	    python3-venv) python3 -c 'import ensurepip' >/dev/null 2>&1 || missing="$$missing $$pkg" ;; \
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
	$(call install_missing,$(LIB_DEPS),lib)

test-deps: deps
	$(call install_missing,$(TEST_DEPS),cmd)
	$(call install_missing,$(TEST_LIB_DEPS),lib)

bench-deps: test-deps
	$(call install_missing,$(BENCH_DEPS),cmd)

build: deps
	$(SWIFT) build -c $(CONFIG)

# The main job, on the sample clips: find what is usable, measure it, normalise it to the podcast
# target into build/demo, and check the written files against the same gate. Records flow as JSON
# lines between the tools; summaries go to stderr.
DEMO_OUT ?= build/demo
demo: build
	@echo "== audio-probe | library-filter | lufs-measure | lufs-normalize  (Fixtures/clips -> $(DEMO_OUT))"
	@mkdir -p $(DEMO_OUT)
	@$(BIN)/audio-probe Fixtures/clips \
	  | $(BIN)/library-filter \
	  | $(BIN)/lufs-measure \
	  | $(BIN)/lufs-normalize --preset podcast --format flac --overwrite --out-dir $(DEMO_OUT)/audio \
	  | tee $(DEMO_OUT)/records.jsonl
	@echo
	@echo "== lufs-measure --preset podcast $(DEMO_OUT)/audio  (the written files, gated)"
	@$(BIN)/lufs-measure --preset podcast --summary $(DEMO_OUT)/audio > $(DEMO_OUT)/check.jsonl

test: test-deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

bench: bench-deps build
	BIN=$(BIN) BENCH_DIR=$(BENCH_DIR) python3 Tests/Bench/bench.py $(SECTIONS)

install: build
	install -d $(DESTDIR)$(PREFIX)/bin
	for t in $(TOOLS); do install -m 755 $(BIN)/$$t $(DESTDIR)$(PREFIX)/bin/$$t; done

uninstall:
	for t in $(TOOLS); do rm -f $(DESTDIR)$(PREFIX)/bin/$$t; done

fuzz: deps
	bash Tests/Fuzz/run.sh $${FUZZ_SECONDS:-60}

clean:
	rm -rf .build

# The two commands of README.md, and their parts. All logic is in scripts/dev.sh.
.PHONY: serve test setup build dist lint native python wasm-test e2e library fuzz perf

serve:      ; scripts/dev.sh serve
test:       ; scripts/dev.sh test
setup:      ; scripts/dev.sh setup
build:      ; scripts/dev.sh build
dist:       ; scripts/dev.sh dist
lint:       ; scripts/dev.sh lint
native:     ; scripts/dev.sh native
python:     ; scripts/dev.sh python
wasm-test:  ; scripts/dev.sh wasm-test
e2e:        ; scripts/dev.sh e2e
library:    ; scripts/dev.sh library
fuzz:       ; scripts/dev.sh fuzz
perf:       ; scripts/perf.sh

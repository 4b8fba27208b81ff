#!/usr/bin/env bash
# Debian packages the tests use: a real browser, a real speech engine, a real MQTT broker, and the AVR
# toolchain + simulator that run the LED firmware. Installed only when missing and when we are root;
# otherwise the tests that need them skip with a message saying which package is absent.
set -u
pkgs=(make gcc chromium chromium-driver espeak-ng sox mosquitto gcc-avr avr-libc simavr libsimavr-dev libelf-dev pkg-config poppler-utils)
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
  echo "system-deps: not root, cannot install: ${missing[*]} (tests needing them will skip)" >&2
  exit 0
fi
echo "system-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
  || echo "system-deps: apt-get failed; tests needing ${missing[*]} will skip" >&2
exit 0

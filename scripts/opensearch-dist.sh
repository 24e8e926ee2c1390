#!/usr/bin/env bash
# Makes sure the OpenSearch integration-test distribution is downloaded and unpacked in the local
# cache, then prints the path of its home directory (the only thing written to stdout).
#
#   scripts/opensearch-dist.sh            # -> $HOME/.cache/lrs/opensearch-2.19.3
#
# Environment: OPENSEARCH_VERSION (default 2.19.3), LRS_CACHE_DIR (default $HOME/.cache/lrs).
#
# Why this distribution: no Docker and no general internet here, but Maven Central is reachable and
# carries org.opensearch.distribution.integ-test-zip (the JDK-less zip OpenSearch's own test
# clusters use: core server + transport-netty4 only, no security plugin, no other modules).
# The reindex module (`_delete_by_query`, which erasing an organization uses) and the lang-painless
# module (the scripts of report `profile` stages; Amazon OpenSearch Service has both, as the full
# distribution does, the integ-test-zip neither) are put together from Maven Central's jars and their
# dependencies, less those the server already has in lib/, with each module's descriptor.
# The zip is fetched with mvn and unpacked into a temporary directory that is renamed into place,
# so an interrupted download or unzip never leaves a half-written tree behind. A lock (flock, where
# available) serialises concurrent callers, e.g. jest and the benchmark starting at the same time.
set -euo pipefail

version="${OPENSEARCH_VERSION:-2.19.3}"
cache="${LRS_CACHE_DIR:-$HOME/.cache/lrs}"

log() { echo "opensearch-dist: $*" >&2; }

download() {
  command -v mvn >/dev/null || { log "mvn is required to download $zip"; exit 1; }
  local tmp
  tmp="$(mktemp -d "$cache/.download.XXXXXX")"
  log "downloading OpenSearch $version (integ-test-zip) with mvn"
  # Quiet unless it fails (stdout is reserved for the result path).
  if ! mvn -q -B dependency:copy \
    "-Dartifact=org.opensearch.distribution.integ-test-zip:opensearch:$version:zip" \
    "-DoutputDirectory=$tmp" >"$tmp/mvn.log" 2>&1; then
    cat "$tmp/mvn.log" >&2
    rm -rf "$tmp"
    log "mvn could not fetch the distribution"
    exit 1
  fi
  mv "$tmp/opensearch-$version.zip" "$zip"
  rm -rf "$tmp"
}

# Extracts $1 into directory $2, keeping the file modes where the tool can.
extract() {
  if command -v unzip >/dev/null; then
    unzip -q "$1" -d "$2"
  elif command -v python3 >/dev/null; then
    python3 - "$1" "$2" <<'PY'
import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    for info in z.infolist():
        path = z.extract(info, sys.argv[2])
        mode = (info.external_attr >> 16) & 0o777
        if mode:
            os.chmod(path, mode)
PY
  elif command -v jar >/dev/null; then
    (cd "$2" && jar xf "$1")
  else
    log "need one of unzip, python3 or jar to unpack $1"
    exit 1
  fi
}

unpack() {
  local tmp
  tmp="$(mktemp -d "$cache/.unzip.XXXXXX")"
  log "unpacking $zip"
  extract "$zip" "$tmp"
  chmod +x "$tmp/opensearch-$version/bin/"*
  mv "$tmp/opensearch-$version" "$home"
  rm -rf "$tmp"
}

# Adds modules/$1 to the unpacked distribution: the runtime jars of Maven Central's artifact
# org.opensearch.plugin:$2 (less those the server has in lib/), a descriptor naming the plugin class
# $3 and describing it as $4, and the security policy $5 (may be empty).
add_module() {
  local name="$1" artifact="$2" classname="$3" description="$4" policy="$5"
  command -v mvn >/dev/null || { log "mvn is required to download the $name module"; exit 1; }
  local tmp jar
  tmp="$(mktemp -d "$cache/.download.XXXXXX")"
  log "downloading the $name module $version with mvn"
  cat >"$tmp/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
  <groupId>lrs</groupId><artifactId>$name-module</artifactId><version>1</version><packaging>pom</packaging>
  <dependencies><dependency><groupId>org.opensearch.plugin</groupId><artifactId>$artifact</artifactId><version>$version</version></dependency></dependencies>
</project>
POM
  if ! (cd "$tmp" && mvn -q -B dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$tmp/jars" >"$tmp/mvn.log" 2>&1); then
    cat "$tmp/mvn.log" >&2
    rm -rf "$tmp"
    log "mvn could not fetch the $name module"
    exit 1
  fi
  mkdir "$tmp/$name"
  for jar in "$tmp/jars/"*.jar; do
    # A jar the server has already (same name) would be loaded twice: OpenSearch refuses that ("jar hell").
    [ -e "$home/lib/$(basename "$jar")" ] || mv "$jar" "$tmp/$name/"
  done
  cat >"$tmp/$name/plugin-descriptor.properties" <<DESC
description=$description
version=$version
name=$name
classname=$classname
java.version=11
opensearch.version=$version
extended.plugins=
has.native.controller=false
DESC
  [ -z "$policy" ] || printf '%s\n' "$policy" >"$tmp/$name/plugin-security.policy"
  mv "$tmp/$name" "$home/modules/$name"
  rm -rf "$tmp"
}

# Painless generates classes at run time: the module's own policy (modules/lang-painless in OpenSearch).
PAINLESS_POLICY='grant {
  permission java.lang.RuntimePermission "createClassLoader";
  permission java.lang.RuntimePermission "getClassLoader";
};'

mkdir -p "$cache"
cache="$(cd "$cache" && pwd)" # absolute: extract() changes directory
zip="$cache/opensearch-$version.zip"
home="$cache/opensearch-$version"
# Leftovers of an interrupted run; only ever touched while holding the lock.
cleanup_partials() { rm -rf "$cache"/.download.* "$cache"/.unzip.*; }

if command -v flock >/dev/null; then
  exec 9>"$cache/.opensearch-dist.lock"
  flock 9
  cleanup_partials
fi

[ -f "$zip" ] || download
[ -x "$home/bin/opensearch" ] || unpack
[ -f "$home/modules/reindex/plugin-descriptor.properties" ] ||
  add_module reindex reindex-client org.opensearch.index.reindex.ReindexPlugin 'Adds _reindex, _update_by_query and _delete_by_query.' ''
[ -f "$home/modules/lang-painless/plugin-descriptor.properties" ] ||
  add_module lang-painless lang-painless org.opensearch.painless.PainlessPlugin 'The Painless scripting language (terms scripts of profile stages).' "$PAINLESS_POLICY"
echo "$home"

#!/usr/bin/env sh
# A self-signed certificate for a trial of the stack: `nginx/self-signed-cert.sh [FOLDER] [HOSTNAME]` writes
# FOLDER/cert.pem and FOLDER/key.pem (default ./tls, the folder docker-compose.yml mounts; default host localhost).
# Browsers warn about it; production uses the hospital's own certificate, mounted the same way.
set -eu
folder=${1:-tls}
host=${2:-localhost}
mkdir -p "$folder"
umask 077
openssl req -x509 -newkey rsa:2048 -sha256 -nodes -days 825 \
    -keyout "$folder/key.pem" -out "$folder/cert.pem" \
    -subj "/CN=$host" \
    -addext "subjectAltName=DNS:$host,DNS:localhost,IP:127.0.0.1" 2>/dev/null
chmod 644 "$folder/cert.pem"
echo "wrote $folder/cert.pem and $folder/key.pem for $host (self-signed, valid 825 days)"

#!/usr/bin/env bash
# Installs the system binaries Quire uses, from Debian packages:
#   tesseract-ocr (+eng, osd)   OCR of images and scanned PDF pages
#   libreoffice impress/writer  rendering legacy .ppt (and .rtf fallback)
#   poppler-utils               pdftotext, only for bench/parse comparisons
#   fonts-dejavu-core           fonts for rendering
#   chromium                    PDF generation (puppeteer-core, QUIRE_CHROMIUM_PATH) and the studio browser tests
# Without them the service still starts; /readyz and the start-up lines say what is missing.
set -euo pipefail
PKGS=(tesseract-ocr tesseract-ocr-eng tesseract-ocr-osd libreoffice-impress-nogui libreoffice-writer-nogui poppler-utils fonts-dejavu-core chromium)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "system packages: all present"
  exit 0
fi
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
echo "installing: ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"

#!/usr/bin/env bash
# `npm run dev`: next dev with the server's JSON log lines made readable (pino-pretty passes other lines through).
# Arguments go to next dev (`npm run dev -- -p 3001`). Production keeps the JSON lines.
set -euo pipefail
cd "$(dirname "$0")/.."
npx next dev "$@" 2>&1 | npx pino-pretty --colorize --messageKey message --timestampKey at --ignore module --messageFormat '{module}: {message}'

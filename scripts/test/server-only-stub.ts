// Under vitest server modules run as plain Node code; the real `server-only` would throw there.
export {}

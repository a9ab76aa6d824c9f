// Test-only TLS material for the harness's SSL listener (cluster `a`): a CA, a broker certificate for 127.0.0.1
// and a client certificate for mutual TLS, made with the openssl CLI (Node cannot sign certificates). They
// protect nothing but a loopback test broker and last two days.
import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export interface TlsMaterial {
  /** PEM of the CA that signed the broker's and the client's certificates. */
  ca: string
  /** The client's certificate and its private key (PKCS#8), PEM. */
  clientCert: string
  clientKey: string
  /** Files the broker reads: its key and certificate chain, and the CA it trusts client certificates from. */
  brokerKeystore: string
  brokerTruststore: string
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] })
}

/** Writes the material into `dir` and returns it. */
export function makeTlsMaterial(dir: string): TlsMaterial {
  mkdirSync(dir, { recursive: true })
  const days = ['-days', '2']
  openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', ...days, '-subj', '/CN=mirrorboard-test-ca'], dir)
  // Clients check the broker's name: the certificate names the loopback address the listener is on.
  writeFileSync(join(dir, 'broker.ext'), 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n')
  writeFileSync(join(dir, 'client.ext'), 'extendedKeyUsage=clientAuth\n')
  for (const [name, subject] of [['broker', '/CN=127.0.0.1'], ['client', '/CN=mirrorboard-test-client']] as const) {
    openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject], dir)
    openssl(['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.pem`, ...days, '-extfile', `${name}.ext`], dir)
  }
  const read = (file: string) => readFileSync(join(dir, file), 'utf8')
  // Kafka's PEM key store: the (unencrypted PKCS#8) key followed by the certificate chain, in one file.
  const brokerKeystore = join(dir, 'broker-keystore.pem')
  writeFileSync(brokerKeystore, `${read('broker.key')}${read('broker.pem')}${read('ca.pem')}`)
  return { ca: read('ca.pem'), clientCert: read('client.pem'), clientKey: read('client.key'), brokerKeystore, brokerTruststore: join(dir, 'ca.pem') }
}

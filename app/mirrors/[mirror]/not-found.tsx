import { MirrorNotFound } from '@/components/mirror/mirror-not-found'

export default function MirrorNotFoundPage() {
  return <MirrorNotFound />
}

import { MirrorPageSkeleton } from '@/components/mirror/mirror-page-skeleton'

export default function Loading() {
  return <MirrorPageSkeleton />
}

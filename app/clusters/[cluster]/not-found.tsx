import { NotFoundPanel } from '@/components/ui/not-found-panel'

export const metadata = { title: 'Cluster not found' }

export default function ClusterNotFound() {
  return <NotFoundPanel what="Cluster not found" detail="No cluster by this name is managed here. It may have been mistyped or removed; the overview lists every cluster." />
}

import { NotFoundPanel } from '@/components/ui/not-found-panel'

export const metadata = { title: 'Not found · Mirrorboard' }

export default function NotFound() {
  return <NotFoundPanel what="This page does not exist" detail="The address may be mistyped, or what it showed was deleted." />
}

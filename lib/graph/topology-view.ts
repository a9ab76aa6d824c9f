/**
 * Zoom and pan of the overview's topology picture as viewBox arithmetic (no DOM): the SVG is drawn from the
 * layout at the server, fitted by the browser's own viewBox scaling, and these functions move that viewBox
 * once the operator zooms or drags. Scales are screen pixels per layout unit.
 */

export interface ViewBox {
  readonly x: number
  readonly y: number
  readonly width: number
  readonly height: number
}

export interface Size {
  readonly width: number
  readonly height: number
}

export const MIN_ZOOM = 0.15
export const MAX_ZOOM = 1.5

/**
 * The view of the whole frame that shows the content as the fitted picture does: at most 1:1, shrunk until
 * it fits, centred. Starting a zoom or a drag from it leaves the picture where it was.
 */
export function fittedView(content: Size, frame: Size): ViewBox {
  const scale = Math.min(frame.width / content.width, frame.height / content.height, 1)
  const width = frame.width / scale
  const height = frame.height / scale
  return { x: content.width / 2 - width / 2, y: content.height / 2 - height / 2, width, height }
}

export function viewScale(view: ViewBox, frame: Size): number {
  return Math.min(frame.width / view.width, frame.height / view.height)
}

/**
 * The view `factor` times closer (below 1: farther), kept between MIN_ZOOM and MAX_ZOOM, with the point under
 * `anchor` (pixels from the frame's top-left corner; its centre by default) staying where it is.
 */
export function zoomView(view: ViewBox, factor: number, frame: Size, anchor: { x: number; y: number } = { x: frame.width / 2, y: frame.height / 2 }): ViewBox {
  const scale = Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, viewScale(view, frame) * factor))
  const width = frame.width / scale
  const height = frame.height / scale
  const across = anchor.x / frame.width
  const down = anchor.y / frame.height
  return { x: view.x + across * view.width - across * width, y: view.y + down * view.height - down * height, width, height }
}

/** The view after the picture was dragged by `delta` screen pixels. */
export function panView(view: ViewBox, delta: { x: number; y: number }, frame: Size): ViewBox {
  const scale = viewScale(view, frame)
  return { ...view, x: view.x - delta.x / scale, y: view.y - delta.y / scale }
}

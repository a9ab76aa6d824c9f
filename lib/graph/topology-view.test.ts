import { describe, expect, it } from 'vitest'
import { MAX_ZOOM, MIN_ZOOM, fittedView, panView, viewScale, zoomView } from './topology-view'

const frame = { width: 800, height: 400 }

describe('fittedView', () => {
  it('shows a small picture 1:1, centred in the frame', () => {
    const view = fittedView({ width: 400, height: 100 }, frame)
    expect(view).toEqual({ x: -200, y: -150, width: 800, height: 400 })
    expect(viewScale(view, frame)).toBe(1)
  })

  it('shrinks a large picture until its longer side fits, centred along the other', () => {
    const view = fittedView({ width: 1600, height: 400 }, frame)
    expect(viewScale(view, frame)).toBe(0.5)
    expect(view).toEqual({ x: 0, y: -200, width: 1600, height: 800 })
  })
})

describe('zoomView', () => {
  const start = fittedView({ width: 1600, height: 400 }, frame)

  it('zooms about the frame centre by default, keeping the point under it', () => {
    const view = zoomView(start, 2, frame)
    expect(viewScale(view, frame)).toBe(1)
    expect(view.x + view.width / 2).toBe(start.x + start.width / 2)
    expect(view.y + view.height / 2).toBe(start.y + start.height / 2)
  })

  it('keeps the point under the anchor in place', () => {
    const anchor = { x: 100, y: 50 }
    const under = (view: { x: number; y: number; width: number; height: number }) => ({ x: view.x + (anchor.x / frame.width) * view.width, y: view.y + (anchor.y / frame.height) * view.height })
    const view = zoomView(start, 1.5, frame, anchor)
    expect(under(view).x).toBeCloseTo(under(start).x)
    expect(under(view).y).toBeCloseTo(under(start).y)
  })

  it('stops at the closest and the farthest zoom', () => {
    expect(viewScale(zoomView(start, 100, frame), frame)).toBe(MAX_ZOOM)
    expect(viewScale(zoomView(start, 0.001, frame), frame)).toBeCloseTo(MIN_ZOOM)
  })
})

describe('panView', () => {
  it('moves the view against the drag, in layout units at the current scale', () => {
    const start = fittedView({ width: 1600, height: 400 }, frame)
    const view = panView(start, { x: 10, y: -20 }, frame)
    expect(view).toEqual({ ...start, x: start.x - 20, y: start.y + 40 })
  })
})

/**
 * The few DOM shapes the browser tests touch inside the page. The repo's TypeScript program
 * has no DOM lib (it is Node code), and a `/// <reference lib="dom" />` would leak browser
 * globals into every file; each test file declares the globals it uses with these types,
 * scoped to that module.
 */
export interface PageElement {
  id: string
  tagName: string
  textContent: string | null
  dataset: Record<string, string | undefined>
  scrollTop: number
  scrollHeight: number
  closest(selector: string): PageElement | null
}

export interface PageDocument {
  activeElement: PageElement | null
  documentElement: PageElement
  querySelector(selector: string): PageElement | null
  querySelectorAll(selector: string): { length: number }
}

export interface PageStorage {
  length: number
}

export type PageWindow = Record<string, unknown>
export type PageGetComputedStyle = (element: PageElement) => { outlineStyle: string }
export type PageRequestAnimationFrame = (callback: () => void) => number

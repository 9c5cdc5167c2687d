// Public types of panel calls (ExtensionHost.panelKey / closePanel), re-exported from types.ts.

/**
 * Which extension's panel a call means. A panel is identified by the pair (extension, panel id):
 * two extensions may each have a panel `main` open at once.
 */
export interface PanelCallOptions {
  /**
   * The extension that opened the panel (the `extension` of the `openPanel` callback).
   * @default the one extension that has the panel id open; when several have it open the call throws
   * `INVALID_ARGUMENT` naming them, and the caller must pass `extension`.
   */
  extension?: string | undefined;
}

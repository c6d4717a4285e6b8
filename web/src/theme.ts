import { createTheme, type CSSVariablesResolver, Drawer, Modal } from '@mantine/core';

/**
 * The dashboard's theme, held to WCAG AA contrast (4.5:1 for text; test/browser/accessibility.test.ts
 * runs axe-core on every screen in both schemes). Mantine's defaults miss it in a few places, fixed here:
 * - filled buttons and badges pick black or white text by the fill's luminance (`autoContrast`, with
 *   the threshold at which one of the two always reaches 4.5:1);
 * - the primary fill is indigo 7 (white on indigo 6 is 4.3:1);
 * - dimmed text is gray 7 in light, dark 1 in dark (gray 6 and dark 2 are 3.3 and 4.0);
 * - the "light" variant (badges, alerts) darkens the text of the colours whose shade 9 is too pale
 *   on their own shade 1.
 */
export const theme = createTheme({
  primaryColor: 'indigo',
  primaryShade: { light: 7, dark: 8 },
  defaultRadius: 'md',
  autoContrast: true,
  luminanceThreshold: 0.18,
  // Every dialog's close button has a name for screen readers (an icon alone has none).
  components: {
    Modal: Modal.extend({ defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } }),
    Drawer: Drawer.extend({ defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } }),
  },
});

/** Light-variant text colours with 4.5:1 on their colour's shade 1 (computed from Mantine's palette). */
const LIGHT_TEXT: Record<string, string> = {
  red: '#bf2828',
  teal: '#087956',
  green: '#257535',
  lime: '#4a760a',
  yellow: '#a15300',
  orange: '#b83d0d',
};

export const cssVariablesResolver: CSSVariablesResolver = (t) => ({
  variables: {},
  light: {
    '--mantine-color-dimmed': t.colors.gray[7],
    ...Object.fromEntries(Object.entries(LIGHT_TEXT).map(([color, text]) => [`--mantine-color-${color}-light-color`, text])),
    // Red buttons keep white text: shade 9 is dark enough for it.
    '--mantine-color-red-filled': t.colors.red[9],
    '--mantine-color-red-filled-hover': '#a82323',
  },
  dark: {
    '--mantine-color-dimmed': t.colors.dark[1],
  },
});

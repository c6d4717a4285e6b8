import { Anchor, createTheme, type CSSVariablesResolver, Drawer, Modal, PasswordInput } from '@mantine/core';

/**
 * The dashboard's theme, held to WCAG AA contrast (4.5:1 for text; test/browser/accessibility.test.ts
 * runs axe-core on every screen in both schemes). Mantine's defaults miss it in a few places, fixed here:
 * - filled buttons and badges pick black or white text by the fill's luminance (`autoContrast`, with
 *   the threshold at which one of the two always reaches 4.5:1);
 * - the primary fill is indigo 7 (white on indigo 6 is 4.3:1);
 * - dimmed text is gray 7 in light, dark 1 in dark (gray 6 and dark 2 are 3.3 and 4.0);
 * - coloured text and the "light" variant (badges, alerts) are darker for the colours whose shades
 *   are too pale on white or on their own shade 1;
 * - links are underlined, so one inside a sentence is told from the text by more than its colour.
 * `words` are the names of Mantine's own icon buttons, in the person's language (main.tsx builds the
 * theme again when the language changes).
 */
export const themeIn = (words: { close: string; passwordVisibility: string }) =>
  createTheme({
    primaryColor: 'indigo',
    primaryShade: { light: 7, dark: 8 },
    defaultRadius: 'md',
    autoContrast: true,
    luminanceThreshold: 0.18,
    // Every dialog's close button has a name for screen readers (an icon alone has none).
    components: {
      // Underlined: a link inside a sentence is told from the text by more than its colour.
      Anchor: Anchor.extend({ defaultProps: { underline: 'always' } }),
      Modal: Modal.extend({ defaultProps: { closeButtonProps: { 'aria-label': words.close } } }),
      Drawer: Drawer.extend({ defaultProps: { closeButtonProps: { 'aria-label': words.close } } }),
      // The eye button of every password input (Mantine names it in English).
      PasswordInput: PasswordInput.extend({ defaultProps: { visibilityToggleButtonProps: { 'aria-label': words.passwordVisibility } } }),
    },
  });

/**
 * Text in a colour (`c="orange"`, the light variant of badges and alerts) with 4.5:1 on the colour's
 * shade 1 and on white, for the colours whose own shades miss it (computed from Mantine's palette).
 */
const TEXT: Record<string, string> = {
  red: '#bf2828',
  blue: '#1864ab',
  cyan: '#0b7285',
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
    ...Object.fromEntries(
      Object.entries(TEXT).flatMap(([color, text]) => [
        [`--mantine-color-${color}-light-color`, text],
        [`--mantine-color-${color}-text`, text],
      ]),
    ),
    // Red buttons keep white text: shade 9 is dark enough for it.
    '--mantine-color-red-filled': t.colors.red[9],
    '--mantine-color-red-filled-hover': '#a82323',
  },
  dark: {
    '--mantine-color-dimmed': t.colors.dark[1],
  },
});

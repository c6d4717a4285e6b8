import { useEffect } from 'react';
import './appFrame.css';
import { Box } from '@mantine/core';
import { Outlet, useMatches, useParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useMe, useProjects } from '../api/session';
import { followLanguage } from '../i18n';
import type { frame } from '../i18n/en/frame';

/** A screen's name, as a key of the frame catalogue's `title` (web/src/i18n/en/frame.ts). */
export type ScreenTitle = keyof typeof frame.title;

/** What a route says about itself in `handle`: the screen's name for the tab's title; `shell`: it lays out its own <main>. */
export interface ScreenHandle {
  title?: ScreenTitle;
  shell?: boolean;
}

/** The deepest matched route's `handle`, read as a ScreenHandle. */
function useScreen(): ScreenHandle {
  const matches = useMatches();
  const handles = matches.map((m) => (m.handle ?? {}) as ScreenHandle);
  return { title: [...handles].reverse().find((h) => h.title !== undefined)?.title, shell: handles.some((h) => h.shell) };
}

/**
 * The browser tab's title from the route's `handle.title`, with the project's name on project screens
 * ("Contacts · My project"), so a person with several tabs, or a screen reader announcing the page,
 * knows which screen of which project it is. A route without one (a contact's page) titles itself
 * with usePageTitle, from what it loaded.
 */
function useDocumentTitle(key: ScreenTitle | undefined) {
  const { t } = useTranslation('frame');
  const screen = key === undefined ? undefined : t(`title.${key}`);
  const { projectId } = useParams();
  const projects = useProjects(!!projectId);
  const project = projects.data?.find((p) => p.id === projectId);
  const title = screen === undefined ? null : project ? `${screen} · ${project.name}` : screen;
  useEffect(() => {
    if (title) document.title = title;
  }, [title]);
}

/**
 * The dashboard speaks the person's language (users.locale, set on the account page), else the
 * browser's: known once /users/@me answers; signed out, the browser's.
 */
function usePersonLanguage() {
  const me = useMe();
  const setting = me.data?.locale;
  const known = !me.isPending;
  useEffect(() => {
    if (known) followLanguage(setting);
  }, [known, setting]);
}

export const MAIN_ID = 'main';

/**
 * Around every screen: the skip link, first in the tab order, that lets keyboard and screen-reader
 * users pass the header and navigation; the title of the tab; and the <main> landmark for screens
 * that have no shell of their own (the project layout's AppShell.Main is its main).
 */
export function AppFrame() {
  const { t } = useTranslation('frame');
  const screen = useScreen();
  usePersonLanguage();
  useDocumentTitle(screen.title);
  return (
    <>
      <Box
        component="a"
        href={`#${MAIN_ID}`}
        className="skip-link"
        onClick={(e) => {
          // The router owns the URL's hash; move the focus without navigating.
          e.preventDefault();
          document.getElementById(MAIN_ID)?.focus();
        }}
      >
        {t('skipToContent')}
      </Box>
      {screen.shell ? (
        <Outlet />
      ) : (
        <main id={MAIN_ID} tabIndex={-1} style={{ outline: 'none' }}>
          <Outlet />
        </main>
      )}
    </>
  );
}

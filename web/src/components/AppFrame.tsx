import { useEffect } from 'react';
import './appFrame.css';
import { Box } from '@mantine/core';
import { Outlet, useMatches, useParams } from 'react-router';
import { useProjects } from '../api/session';

/** What a route says about itself in `handle`: the screen's name for the tab's title; `shell`: it lays out its own <main>. */
export interface ScreenHandle {
  title?: string;
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
function useDocumentTitle(screen: string | undefined) {
  const { projectId } = useParams();
  const projects = useProjects(!!projectId);
  const project = projects.data?.find((p) => p.id === projectId);
  const title = screen === undefined ? null : project ? `${screen} · ${project.name}` : screen;
  useEffect(() => {
    if (title) document.title = title;
  }, [title]);
}

export const MAIN_ID = 'main';

/**
 * Around every screen: the skip link, first in the tab order, that lets keyboard and screen-reader
 * users pass the header and navigation; the title of the tab; and the <main> landmark for screens
 * that have no shell of their own (the project layout's AppShell.Main is its main).
 */
export function AppFrame() {
  const screen = useScreen();
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
        Skip to content
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

